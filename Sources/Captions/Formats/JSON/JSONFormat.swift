extension SubtitleFormat {
    public static let json = SubtitleFormat("json")
}

/// Capforge's own record of the words and cues (written only).
struct JSONFormat: SubtitleFileFormat {
    var id: SubtitleFormat { .json }
    var fileExtension: String { "json" }

    func writer(for captions: CaptionsToWrite) -> any SubtitleWriter {
        JSONWriter(transcript: captions.transcript, cues: captions.cues, settings: captions.settings, quality: captions.quality)
    }
}
