import CapforgeCore
import Foundation

/// A subtitle file held as its own text, with where each cue's times are written, so new times
/// replace those characters and nothing else: text, styling, ASS overrides, comments, notes,
/// numbering, line endings, byte order mark and encoding stay byte for byte. Where the times are
/// comes from the file as its reader parses it (TTML's attributes wherever they stand in a tag),
/// never from a pattern.
public struct RetimableSubtitles: Sendable {
    /// One cue in file order: its times, its plain text (for matching against speech), and
    /// where its time stamps and its whole block sit in the file's text.
    public struct Entry: Sendable, Equatable {
        public var start: Int
        public var end: Int
        public var text: String
        /// In file order.
        let stamps: [Stamp]
        /// The cue's lines with their line breaks (and, for SRT and WebVTT, the blank line
        /// after), or its TTML `p` element.
        let block: Range<String.Index>
    }

    /// One time written in the file: a cue's start, its end, or (TTML's `dur`) the time between.
    struct Stamp: Sendable, Equatable {
        enum Value: Sendable { case start, end, duration }
        let value: Value
        let range: Range<String.Index>
        /// How TTML wrote it; nil where the format has one way.
        let form: TTMLClock.Form?
        /// How far past the cue's end it reaches, in milliseconds: a `p` with both `end` and
        /// `dur` ends at the earlier, and the other keeps its lead.
        var beyond = 0
    }

    /// Where a format's times stand in a file's text, and how it writes a time there.
    public struct TimeStamps: Sendable {
        let entries: [Entry]
        /// A time in milliseconds as the file writes it (in `form` where TTML has several).
        let write: @Sendable (_ milliseconds: Int, _ form: TTMLClock.Form?) -> String
    }

    public let format: SubtitleFormat
    public let encoding: TextEncoding
    public var entries: [Entry] { stamps.entries }
    /// What reading the file assumed or left out.
    public let warnings: [String]
    private let text: String
    private let byteOrderMark: Bool
    private let stamps: TimeStamps

    public init(data: Data, format: SubtitleFormat?) throws {
        let (text, encoding) = try TextDecoding.decode(data)
        // Reading it as the reader does first gives the same errors, with line numbers.
        let (document, reader) = try SubtitleReader.read(text, encoding: encoding, as: SubtitleFormats.reader(format))
        self.text = text
        self.encoding = encoding
        self.format = document.format
        warnings = document.warnings
        byteOrderMark = data.starts(with: [0xEF, 0xBB, 0xBF]) || TextDecoding.isUTF16(data.prefix(2))
        stamps = try reader.timeStamps(in: text)
    }

    /// The file with entry `i` timed `times[i]`, or left out where that is nil.
    public func retimed(_ times: [(start: Int, end: Int)?]) throws -> Data {
        precondition(times.count == entries.count, "one time (or nil) per entry")
        // Assembled in UTF-8 code units: a range of the text ends where its reader said, even
        // inside what Swift counts as one character (a quote and a combining accent).
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        var position = text.startIndex
        for (entry, time) in zip(entries, times) {
            if let time {
                for stamp in entry.stamps {
                    result += text.utf8[position..<stamp.range.lowerBound]
                    let milliseconds = switch stamp.value {
                    case .start: time.start
                    case .end: time.end
                    case .duration: time.end - time.start
                    }
                    result += stamps.write(milliseconds + stamp.beyond, stamp.form).utf8
                    position = stamp.range.upperBound
                }
            } else {
                result += text.utf8[position..<entry.block.lowerBound]
                position = entry.block.upperBound
            }
        }
        result += text.utf8[position...]
        return try encoded(String(decoding: result, as: UTF8.self))
    }

    private func encoded(_ text: String) throws -> Data {
        let data: Data?
        switch encoding {
        case .utf8: data = (byteOrderMark ? Data([0xEF, 0xBB, 0xBF]) : Data()) + Data(text.utf8)
        case .utf16LE: data = (byteOrderMark ? Data([0xFF, 0xFE]) : Data()) + Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        case .utf16BE: data = (byteOrderMark ? Data([0xFE, 0xFF]) : Data()) + Data(text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        case .windows1252: data = text.data(using: .windowsCP1252)
        case .latin1: data = text.data(using: .isoLatin1)
        }
        // Only ASCII digits changed, so what was decoded encodes again.
        guard let data else { throw SubtitleReadError.undecodable(reason: "its text cannot be written back in \(encoding.rawValue)") }
        return data
    }

    /// Each line's text and its range with the line break.
    private static func lines(of text: String) -> [(content: Range<String.Index>, whole: Range<String.Index>)] {
        var lines: [(Range<String.Index>, Range<String.Index>)] = []
        var start = text.startIndex
        var index = start
        // "\r\n" is one Character in Swift, so each break is one step.
        while index < text.endIndex {
            let next = text.index(after: index)
            if text[index].isNewline {
                lines.append((start..<index, start..<next))
                start = next
            }
            index = next
        }
        if start < text.endIndex { lines.append((start..<text.endIndex, start..<text.endIndex)) }
        return lines
    }

    /// SRT and WebVTT: each cue block as its reader finds it (WebVTT's header and its NOTE,
    /// STYLE and REGION blocks are none), its timing line the first or second.
    static func blockEntries(_ text: String, webVTT: Bool) throws -> [Entry] {
        let lines = Self.lines(of: text)
        let strings = lines.map { String(text[$0.content]) }
        let blocks = SubtitleReader.blocks(strings)
        return try blocks.enumerated().compactMap { number, block -> Entry? in
            if webVTT, number == 0 || WebVTTReader.isComment(block.lines) { return nil }
            let offset = try SubtitleReader.timingOffset(block.lines, line: block.line)
            let first = block.line - 1
            let timing = lines[first + offset].content
            guard let arrow = text[timing].range(of: "-->"),
                  let startRange = trimmed(text, timing.lowerBound..<arrow.lowerBound),
                  let endRange = firstWord(text, arrow.upperBound..<timing.upperBound),
                  let start = Timecode.parse(text[startRange]), let end = Timecode.parse(text[endRange]) else {
                throw SubtitleReadError.malformedTiming(line: block.line + offset, text: String(text[timing]))
            }
            let body = block.lines[(offset + 1)...].map { SubtitleReader.stripTags($0) }
            let plain = (webVTT ? body.map(WebVTTReader.unescape) : body).joined(separator: " ")
            // The block runs to the next block's first line (its blank lines with it).
            let last = number + 1 < blocks.count ? blocks[number + 1].line - 2 : lines.count - 1
            return Entry(start: start, end: end, text: plain,
                         stamps: [Stamp(value: .start, range: startRange, form: nil), Stamp(value: .end, range: endRange, form: nil)],
                         block: lines[first].whole.lowerBound..<lines[last].whole.upperBound)
        }
    }

    /// ASS: each `Dialogue` line but the notice, its Start and End fields wherever its section's
    /// `Format:` line puts them.
    static func assEntries(_ text: String) throws -> [Entry] {
        let lines = Self.lines(of: text)
        return try ASSDocument(lines: lines.map { String(text[$0.content]) }).events.compactMap { event -> Entry? in
            if event.isNotice { return nil }
            let line = lines[event.line]
            func stamp(_ name: String, _ value: Stamp.Value) -> Stamp? {
                event.format.firstIndex { $0.caseInsensitiveCompare(name) == .orderedSame }
                    .flatMap { field($0, in: text, line.content) }.map { Stamp(value: value, range: $0, form: nil) }
            }
            guard let start = event.startMilliseconds, let end = event.endMilliseconds, let from = stamp("Start", .start), let to = stamp("End", .end) else {
                throw SubtitleReadError.malformedTiming(line: event.line + 1, text: String(text[line.content]))
            }
            let plain = ASSEventText(event.text).lines.joined(separator: " ")
            return Entry(start: start, end: end, text: plain, stamps: [from, to].sorted { $0.range.lowerBound < $1.range.lowerBound }, block: line.whole)
        }
    }

    /// TTML: each `p`'s `begin`, and `end` or `dur` or both, as `TTMLDocument` found them.
    /// Times on `body` or `div`, which a `p`'s add to, would need the containment rewritten:
    /// refused, saying so.
    static func ttmlEntries(_ text: String, _ document: TTMLDocument) throws -> [Entry] {
        if let timed = document.otherTimed {
            throw SubtitleReadError.malformedEvent(line: timed.line, reason: "times on <\(timed.name)> cannot be re-timed yet; put begin and end on each <p>")
        }
        let utf8 = text.utf8
        func index(_ offset: Int) -> String.Index { utf8.index(utf8.startIndex, offsetBy: offset) }
        return try document.paragraphs.map { p in
            guard let begin = p.begin else {
                throw SubtitleReadError.malformedEvent(line: p.line, reason: "a <p> without begin starts with its parent; give it a begin to re-time it")
            }
            // Without timed parents, `end` counts from the document's start and `dur` from the `p`'s.
            let values: [(Stamp.Value, TTMLDocument.TimeValue?, Double)] = [(.start, begin, 0), (.end, p.endValue, 0), (.duration, p.dur, p.start)]
            let stamps = values.compactMap { value, time, from in
                time.map { time in
                    Stamp(value: value, range: index(time.range.lowerBound)..<index(time.range.upperBound), form: time.form,
                          beyond: value == .start ? 0 : Int(((from + time.seconds - p.end) * 1000).rounded()))
                }
            }
            return Entry(start: Int((p.start * 1000).rounded()), end: Int((p.end * 1000).rounded()), text: p.lines.joined(separator: " "),
                         stamps: stamps.sorted { $0.range.lowerBound < $1.range.lowerBound }, block: index(p.range.lowerBound)..<index(p.range.upperBound))
        }
    }

    /// Where the value of the `index`-th comma-separated field after the `Dialogue:` key lies.
    private static func field(_ index: Int, in text: String, _ line: Range<String.Index>) -> Range<String.Index>? {
        guard let colon = text[line].firstIndex(of: ":") else { return nil }
        var fieldStart = text.index(after: colon)
        for _ in 0..<index {
            guard let comma = text[fieldStart..<line.upperBound].firstIndex(of: ",") else { return nil }
            fieldStart = text.index(after: comma)
        }
        let fieldEnd = text[fieldStart..<line.upperBound].firstIndex(of: ",") ?? line.upperBound
        return trimmed(text, fieldStart..<fieldEnd)
    }

    private static func trimmed(_ text: String, _ range: Range<String.Index>) -> Range<String.Index>? {
        guard let first = text[range].firstIndex(where: { !$0.isWhitespace }),
              let last = text[range].lastIndex(where: { !$0.isWhitespace }) else { return nil }
        return first..<text.index(after: last)
    }

    private static func firstWord(_ text: String, _ range: Range<String.Index>) -> Range<String.Index>? {
        guard let first = text[range].firstIndex(where: { !$0.isWhitespace }) else { return nil }
        return first..<(text[first..<range.upperBound].firstIndex(where: \.isWhitespace) ?? range.upperBound)
    }
}
