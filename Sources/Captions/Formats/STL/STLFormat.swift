extension SubtitleFormat {
    public static let stl = SubtitleFormat("stl")
}

/// EBU STL, binary (written only).
struct STLFormat: SubtitleFileFormat {
    var id: SubtitleFormat { .stl }
    var fileExtension: String { "stl" }

    func writer(for captions: CaptionsToWrite) -> any SubtitleWriter {
        STLWriter(cues: captions.cues, transcript: captions.transcript, frameRate: captions.frameRate)
    }
}
