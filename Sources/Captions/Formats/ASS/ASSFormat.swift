import CapforgeCore
import Foundation

extension SubtitleFormat {
    public static let ass = SubtitleFormat("ass")
}

/// Advanced SubStation Alpha: styles, positions, karaoke and the notice, times in centiseconds.
struct ASSFormat: ReadableSubtitleFormat {
    var id: SubtitleFormat { .ass }
    var fileExtension: String { "ass" }
    var extensions: [String] { ["ass", "ssa"] }
    /// A two-frame gap at 24 fps (83.3 ms) can only be written as 80 or 90 ms.
    var timeStep: Double { 10 }

    func opens(with line: String) -> Bool { line.lowercased() == "[script info]" }

    func writer(for captions: CaptionsToWrite) -> any SubtitleWriter { captions.ass }

    func read(_ text: String, lines: [String]) throws -> (cues: [Cue], warnings: [String]) {
        (try ASSReader.cues(ASSDocument(lines: lines)), [])
    }

    /// Events in time order (renderers show them so), sorted through a temporary file when there are many.
    func forEachCue(fileAt url: URL, head: Data, limit: Int?, _ body: (Cue) throws -> Void) throws -> (format: SubtitleFormat, encoding: TextEncoding, warnings: [String]) {
        var encoding = TextEncoding.utf8
        let cues = try SortedSpool<FileCue>(by: { $0.cue.start < $1.cue.start }) { add in
            encoding = try SubtitleReader.forEachScriptLine(ofFileAt: url, head: head, limit: limit) { _, event in
                if let cue = event?.cue { try add(FileCue(cue: cue)) }
            }
        }
        try cues.forEach { try body($0.cue) }
        return (id, encoding, [])
    }

    func timeStamps(in text: String) throws -> RetimableSubtitles.TimeStamps {
        .init(entries: try RetimableSubtitles.assEntries(text)) { milliseconds, _ in Timecode.centiseconds(milliseconds) }
    }

    /// A cue read from a file (it has no words) as a spool keeps it.
    private struct FileCue: Spoolable {
        let cue: Cue

        init(cue: Cue) { self.cue = cue }

        func spool(into writer: inout SpoolWriter) {
            writer.write(cue.start)
            writer.write(cue.end)
            writer.write(cue.lines.count)
            cue.lines.forEach { writer.write($0) }
        }

        init(unspooling reader: inout SpoolReader) {
            let start = reader.readInt(), end = reader.readInt()
            cue = Cue(start: start, end: end, lines: (0..<reader.readInt()).map { _ in reader.readString() })
        }
    }
}
