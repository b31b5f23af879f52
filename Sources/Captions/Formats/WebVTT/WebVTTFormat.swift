import CapforgeCore
import Foundation

extension SubtitleFormat {
    public static let vtt = SubtitleFormat("vtt")
}

/// WebVTT: a `WEBVTT` header, then cue blocks and NOTE, STYLE and REGION blocks.
struct WebVTTFormat: ReadableSubtitleFormat {
    var id: SubtitleFormat { .vtt }
    var fileExtension: String { "vtt" }
    var extensions: [String] { ["vtt", "webvtt"] }

    func opens(with line: String) -> Bool { line.hasPrefix("WEBVTT") }

    func writer(for captions: CaptionsToWrite) -> any SubtitleWriter {
        WebVTTWriter(cues: captions.cues, transcript: captions.transcript, karaoke: captions.karaoke)
    }

    func read(_ text: String, lines: [String]) throws -> (cues: [Cue], warnings: [String]) {
        (try WebVTTReader.cues(lines), [])
    }

    func forEachCue(fileAt url: URL, head: Data, limit: Int?, _ body: (Cue) throws -> Void) throws -> (format: SubtitleFormat, encoding: TextEncoding, warnings: [String]) {
        // The first block is the header, on the first line.
        var header = true
        let encoding = try SubtitleReader.forEachBlock(ofFileAt: url, head: head, limit: limit) { block in
            guard !header else {
                try WebVTTReader.checkHeader(block.line == 1 ? block.lines.first : nil)
                header = false
                return
            }
            if let cue = try WebVTTReader.cue(block.lines, line: block.line) { try body(cue) }
        }
        if header { try WebVTTReader.checkHeader(nil) }
        return (id, encoding, [])
    }

    func timeStamps(in text: String) throws -> RetimableSubtitles.TimeStamps {
        .init(entries: try RetimableSubtitles.blockEntries(text, webVTT: true)) { milliseconds, _ in Timecode.milliseconds(milliseconds, mark: ".") }
    }
}
