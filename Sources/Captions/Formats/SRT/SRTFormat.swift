import CapforgeCore
import Foundation

extension SubtitleFormat {
    public static let srt = SubtitleFormat("srt")
}

/// SubRip: numbered blocks of timed plain text. Recognised by nothing but its extension; a file
/// nothing else recognises is read as SRT.
struct SRTFormat: ReadableSubtitleFormat {
    var id: SubtitleFormat { .srt }
    var fileExtension: String { "srt" }
    var extensions: [String] { ["srt"] }

    func opens(with line: String) -> Bool { false }

    func writer(for captions: CaptionsToWrite) -> any SubtitleWriter { SRTWriter(cues: captions.cues) }

    func read(_ text: String, lines: [String]) throws -> (cues: [Cue], warnings: [String]) {
        (try SRTReader.cues(lines), [])
    }

    func forEachCue(fileAt url: URL, head: Data, limit: Int?, _ body: (Cue) throws -> Void) throws -> (format: SubtitleFormat, encoding: TextEncoding, warnings: [String]) {
        let encoding = try SubtitleReader.forEachBlock(ofFileAt: url, head: head, limit: limit) { block in
            try body(SRTReader.cue(block.lines, line: block.line))
        }
        return (id, encoding, [])
    }

    func timeStamps(in text: String) throws -> RetimableSubtitles.TimeStamps {
        .init(entries: try RetimableSubtitles.blockEntries(text, webVTT: false)) { milliseconds, _ in Timecode.milliseconds(milliseconds, mark: ",") }
    }
}
