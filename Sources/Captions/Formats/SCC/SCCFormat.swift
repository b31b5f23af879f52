import CapforgeCore
import Foundation

extension SubtitleFormat {
    public static let scc = SubtitleFormat("scc")
}

/// Scenarist SCC: CEA-608 pop-on captions on channel 1, as the codes sent at each time.
struct SCCFormat: ReadableSubtitleFormat {
    var id: SubtitleFormat { .scc }
    var fileExtension: String { "scc" }
    var extensions: [String] { ["scc"] }

    func opens(with line: String) -> Bool { line.hasPrefix("Scenarist_SCC") }

    func writer(for captions: CaptionsToWrite) -> any SubtitleWriter { SCCWriter(cues: captions.cues) }

    func read(_ text: String, lines: [String]) throws -> (cues: [Cue], warnings: [String]) {
        (try SCCReader.read(text), [])
    }

    func forEachCue(fileAt url: URL, head: Data, limit: Int?, _ body: (Cue) throws -> Void) throws -> (format: SubtitleFormat, encoding: TextEncoding, warnings: [String]) {
        try SubtitleReader.forEachCueReadWhole(fileAt: url, body)
    }

    /// Its times are when each code is sent, not when a cue shows: moving them would need the file written anew.
    func timeStamps(in text: String) throws -> RetimableSubtitles.TimeStamps {
        throw SubtitleReadError.malformedEvent(line: 1, reason: "SCC cannot be re-timed in place; convert it (capforge reads it) or give SRT, WebVTT, ASS or TTML")
    }
}
