import CapforgeCore
import Foundation

/// A subtitle file held as its own text, with where each cue's times are written, so new times
/// replace those digits and nothing else: text, styling, ASS overrides, comments, numbering,
/// line endings, byte order mark and encoding stay byte for byte.
public struct RetimableSubtitles: Sendable {
    /// One cue in file order: its times, its plain text (for matching against speech), and
    /// where its time stamps and its whole block sit in the file's text.
    public struct Entry: Sendable, Equatable {
        public var start: Int
        public var end: Int
        public var text: String
        let startRange: Range<String.Index>
        let endRange: Range<String.Index>
        /// The cue's lines with their line breaks (and, for SRT and WebVTT, the blank line after).
        let block: Range<String.Index>
    }

    public let format: SubtitleFormat
    public let encoding: TextEncoding
    public let entries: [Entry]
    private let text: String
    private let byteOrderMark: Bool

    public init(data: Data, format: SubtitleFormat?) throws {
        let (text, encoding) = try TextDecoding.decode(data)
        // Reading it as the reader does first gives the same errors, with line numbers.
        let document = try SubtitleReader.read(text, encoding: encoding, format: format)
        self.text = text
        self.encoding = encoding
        self.format = document.format
        byteOrderMark = encoding == .utf8 && data.starts(with: [0xEF, 0xBB, 0xBF]) || encoding == .utf16LE || encoding == .utf16BE
        let lines = Self.lines(of: text)
        switch document.format {
        case .ass: entries = Self.assEntries(text, lines: lines)
        case .srt, .vtt, .json, .stl: entries = Self.blockEntries(text, lines: lines, format: document.format)
        case .ttml, .ebuTTD: entries = try Self.ttmlEntries(text)
        case .scc:
            // Its times are when each code is sent, not when a cue shows: moving them would need the file written anew.
            throw SubtitleReadError.malformedEvent(line: 1, reason: "SCC cannot be re-timed in place; convert it (capforge reads it) or give SRT, WebVTT, ASS or TTML")
        }
    }

    /// The file with entry `i` timed `times[i]`, or left out where that is nil.
    public func retimed(_ times: [(start: Int, end: Int)?]) throws -> Data {
        precondition(times.count == entries.count, "one time (or nil) per entry")
        var result = ""
        var position = text.startIndex
        for (entry, time) in zip(entries, times) {
            if let time {
                result += text[position..<entry.startRange.lowerBound] + stamp(time.start)
                result += text[entry.startRange.upperBound..<entry.endRange.lowerBound] + stamp(time.end)
                position = entry.endRange.upperBound
            } else {
                result += text[position..<entry.block.lowerBound]
                position = entry.block.upperBound
            }
        }
        result += text[position...]
        return try encoded(result)
    }

    private func stamp(_ milliseconds: Int) -> String {
        switch format {
        case .ass: Timecode.centiseconds(milliseconds)
        case .vtt: Timecode.milliseconds(milliseconds, mark: ".")
        case .srt, .json, .stl: Timecode.milliseconds(milliseconds, mark: ",")
        case .ttml, .ebuTTD: TTMLWriter.time(milliseconds)
        case .scc: Timecode.milliseconds(milliseconds, mark: ",")
        }
    }

    private func encoded(_ text: String) throws -> Data {
        let data: Data?
        switch encoding {
        case .utf8: data = (byteOrderMark ? Data([0xEF, 0xBB, 0xBF]) : Data()) + Data(text.utf8)
        case .utf16LE: data = Data([0xFF, 0xFE]) + Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        case .utf16BE: data = Data([0xFE, 0xFF]) + Data(text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
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

    /// SRT and WebVTT: a block's timing line is its first or second line.
    private static func blockEntries(_ text: String, lines: [(content: Range<String.Index>, whole: Range<String.Index>)], format: SubtitleFormat) -> [Entry] {
        let strings = lines.map { String(text[$0.content]) }
        let blocks = SubtitleReader.blocks(strings)
        return blocks.enumerated().compactMap { number, block -> Entry? in
            let first = block.line - 1
            guard let offset = block.lines.prefix(2).firstIndex(where: { $0.contains("-->") }) else { return nil }
            let timing = lines[first + offset].content
            guard let arrow = text[timing].range(of: "-->"),
                  let startRange = trimmed(text, timing.lowerBound..<arrow.lowerBound),
                  let endRange = firstWord(text, arrow.upperBound..<timing.upperBound),
                  let start = Timecode.parse(text[startRange]), let end = Timecode.parse(text[endRange]) else { return nil }
            let body = block.lines[(offset + 1)...].map { SubtitleReader.stripTags($0) }
            let plain = (format == .vtt ? body.map(WebVTTReader.unescape) : body).joined(separator: " ")
            // The block runs to the next block's first line (its blank lines with it).
            let last = number + 1 < blocks.count ? blocks[number + 1].line - 2 : lines.count - 1
            return Entry(start: start, end: end, text: plain, startRange: startRange, endRange: endRange,
                         block: lines[first].whole.lowerBound..<lines[last].whole.upperBound)
        }
    }

    /// ASS: each `Dialogue` line but the notice, its Start and End fields.
    private static func assEntries(_ text: String, lines: [(content: Range<String.Index>, whole: Range<String.Index>)]) -> [Entry] {
        ASSDocument(lines: lines.map { String(text[$0.content]) }).events.compactMap { event -> Entry? in
            guard !event.isNotice, let start = event.startMilliseconds, let end = event.endMilliseconds,
                  let startField = event.format.firstIndex(of: "Start"), let endField = event.format.firstIndex(of: "End") else { return nil }
            let line = lines[event.line]
            guard let startRange = field(startField, in: text, line.content), let endRange = field(endField, in: text, line.content) else { return nil }
            let plain = ASSEventText(event.text).lines.joined(separator: " ")
            return Entry(start: start, end: end, text: plain, startRange: startRange, endRange: endRange, block: line.whole)
        }
    }

    /// TTML: each `p`'s `begin` and `end` attribute values. Times set on `body` or `div`, or a
    /// `p` timed by `dur`, would need the containment rewritten: refused, saying so.
    private static func ttmlEntries(_ text: String) throws -> [Entry] {
        let comments = text.ranges(of: /<!--(?s:.*?)-->/)
        func outsideComments(_ range: Range<String.Index>) -> Bool { !comments.contains { $0.overlaps(range) } }
        if let timed = text.firstMatch(of: /<(?:\w+:)?(?:body|div)\b[^>]*\b(?:begin|end|dur)\s*=/), outsideComments(timed.range) {
            throw SubtitleReadError.malformedEvent(line: text[..<timed.range.lowerBound].filter(\.isNewline).count + 1,
                                                   reason: "times on <body> or <div> cannot be re-timed yet; put begin and end on each <p>")
        }
        var entries: [Entry] = []
        for tag in text.matches(of: /<(?:\w+:)?p\b[^>]*>/) where outsideComments(tag.range) {
            let line = text[..<tag.range.lowerBound].filter(\.isNewline).count + 1
            guard let begin = tag.output.firstMatch(of: /\bbegin\s*=\s*["']([^"']*)["']/),
                  let end = tag.output.firstMatch(of: /\bend\s*=\s*["']([^"']*)["']/) else {
                throw SubtitleReadError.malformedEvent(line: line, reason: "a <p> without both begin and end (dur) cannot be re-timed yet")
            }
            let clock = TTMLReader.Clock()
            guard let start = clock.seconds(String(begin.output.1)), let stop = clock.seconds(String(end.output.1)) else {
                throw SubtitleReadError.malformedTiming(line: line, text: String(tag.output))
            }
            let close = text[tag.range.upperBound...].firstMatch(of: /<\/(?:\w+:)?p\s*>/)?.range.upperBound ?? tag.range.upperBound
            let inner = text[tag.range.upperBound..<close].replacing(/<[^>]*>/, with: " ")
            entries.append(Entry(start: Int((start * 1000).rounded()), end: Int((stop * 1000).rounded()),
                                 text: inner.split(whereSeparator: \.isWhitespace).joined(separator: " "),
                                 startRange: begin.output.1.startIndex..<begin.output.1.endIndex, endRange: end.output.1.startIndex..<end.output.1.endIndex,
                                 block: tag.range.lowerBound..<close))
        }
        return entries
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
