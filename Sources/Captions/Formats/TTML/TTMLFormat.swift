import CapforgeCore
import Foundation

extension SubtitleFormat {
    /// IMSC 1.1 Text, for streaming delivery.
    public static let ttml = SubtitleFormat("ttml")
    /// EBU-TT-D, for broadcast delivery.
    public static let ebuTTD = SubtitleFormat("ebu-tt-d")
}

/// TTML, written as IMSC 1.1 Text; any TTML is read (IMSC, EBU-TT-D, DFXP).
struct TTMLFormat: ReadableSubtitleFormat {
    var id: SubtitleFormat { .ttml }
    var fileExtension: String { "ttml" }
    var extensions: [String] { ["ttml", "dfxp", "xml"] }

    func opens(with line: String) -> Bool { line.hasPrefix("<?xml") || line.hasPrefix("<tt") }

    func writer(for captions: CaptionsToWrite) -> any SubtitleWriter {
        TTMLWriter(cues: captions.cues, transcript: captions.transcript, profile: .imsc11Text, frameRate: captions.frameRate)
    }

    func read(_ text: String, lines: [String]) throws -> (cues: [Cue], warnings: [String]) {
        try TTMLReader.read(text)
    }

    func forEachCue(fileAt url: URL, head: Data, limit: Int?, _ body: (Cue) throws -> Void) throws -> (format: SubtitleFormat, encoding: TextEncoding, warnings: [String]) {
        try SubtitleReader.forEachCueReadWhole(fileAt: url, body)
    }

    /// Times are written back in the form and at the rates the file used.
    func timeStamps(in text: String) throws -> RetimableSubtitles.TimeStamps {
        let document = try TTMLDocument(text)
        let clock = document.clock
        return .init(entries: try RetimableSubtitles.ttmlEntries(text, document)) { milliseconds, form in
            form.map { clock.text(milliseconds, form: $0) } ?? TTMLWriter.time(milliseconds)
        }
    }
}

/// EBU-TT-D, written only: its files end in `.xml` and are read as TTML.
struct EBUTTDFormat: SubtitleFileFormat {
    var id: SubtitleFormat { .ebuTTD }
    var fileExtension: String { "ebu-tt-d.xml" }

    func writer(for captions: CaptionsToWrite) -> any SubtitleWriter {
        TTMLWriter(cues: captions.cues, transcript: captions.transcript, profile: .ebuTTD, frameRate: captions.frameRate)
    }
}
