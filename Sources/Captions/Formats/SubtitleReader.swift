import CapforgeCore
import Foundation

/// A subtitle file as read: its cues in time order and how its bytes were decoded.
public struct SubtitleDocument: Sendable, Equatable {
    public var format: SubtitleFormat
    public var encoding: TextEncoding
    public var cues: [Cue]
    /// What reading assumed or left out (control characters a TTML reference named).
    public var warnings: [String] = []
}

/// Reads SRT, WebVTT, ASS, TTML and SCC, forgiving the usual damage (BOM, CRLF, missing final newline,
/// comma or period decimals, out-of-order indices) and failing with a line number otherwise.
public enum SubtitleReader {
    public static func read(fileAt url: URL) throws -> SubtitleDocument {
        let (text, encoding) = try TextDecoding.decode(contents(of: url))
        return try read(text, encoding: encoding, as: SubtitleFormats.reading(fileExtension: url.pathExtension)).document
    }

    /// An ASS file whole, styles and all (for the burn-in), checked as `read` checks it.
    public static func script(fileAt url: URL) throws -> ASSDocument {
        let document = ASSDocument(parsing: try TextDecoding.decode(contents(of: url)).text)
        _ = try ASSReader.cues(document)
        return document
    }

    /// A feature film's subtitles are well under a megabyte; the bound keeps a wrong path
    /// (a video, a disk image) from being read whole, or taken for a track.
    public static let sizeLimit = 64_000_000

    private static func contents(of url: URL) throws -> Data {
        try UserFile.read(url, what: "subtitle file", limit: sizeLimit)
    }

    /// Reads bytes; without a format (or with one written only), it is recognised from the content.
    public static func read(_ data: Data, format: SubtitleFormat? = nil) throws -> SubtitleDocument {
        let (text, encoding) = try TextDecoding.decode(data)
        return try read(text, encoding: encoding, as: SubtitleFormats.reader(format)).document
    }

    /// Reads text already decoded from `encoding`; returns the format it was read as.
    static func read(_ text: String, encoding: TextEncoding, as format: (any ReadableSubtitleFormat)?) throws -> (document: SubtitleDocument, format: any ReadableSubtitleFormat) {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        let format = format ?? SubtitleFormats.recognised(lines)
        let (cues, warnings) = try format.read(text, lines: lines)
        let document = SubtitleDocument(format: format.id, encoding: encoding, cues: cues.enumerated().sorted {
            ($0.element.start, $0.offset) < ($1.element.start, $1.offset)
        }.map(\.element), warnings: warnings)
        return (document, format)
    }

    /// Groups lines into blocks separated by blank lines, each with its first line's number.
    static func blocks(_ lines: [String], from start: Int = 0) -> [(line: Int, lines: [String])] {
        var blocks: [(line: Int, lines: [String])] = []
        var splitter = BlockSplitter()
        for index in start..<lines.count {
            if let block = splitter.add(lines[index], number: index + 1) { blocks.append(block) }
        }
        if let block = splitter.finish() { blocks.append(block) }
        return blocks
    }

    /// Blank-line-separated blocks, a line at a time.
    struct BlockSplitter {
        private var current: [String] = []
        private var currentLine = 0

        /// The block `line` (numbered `number`) ends, if it is blank and ends one.
        mutating func add(_ line: String, number: Int) -> (line: Int, lines: [String])? {
            guard line.trimmingCharacters(in: .whitespaces).isEmpty else {
                if current.isEmpty { currentLine = number }
                current.append(line)
                return nil
            }
            return finish()
        }

        mutating func finish() -> (line: Int, lines: [String])? {
            defer { current = [] }
            return current.isEmpty ? nil : (currentLine, current)
        }
    }

    /// Calls `body` with each cue of a subtitle file, holding few at a time, so its size does not
    /// matter: SRT and WebVTT in file order (players read them so), an ASS script's events in
    /// time order (renderers show them so, and `read` gives them so), sorted through a temporary
    /// file when there are many. TTML and SCC are read whole (up to `read`'s bound) and handed on
    /// in time order. `limit` bounds the file's size as `read` does. Returns how the file was read
    /// and what reading it assumed or left out.
    public static func forEachCue(fileAt url: URL, limit: Int? = nil, _ body: (Cue) throws -> Void) throws -> (format: SubtitleFormat, encoding: TextEncoding, warnings: [String]) {
        let head = try UserFile.head(url, what: "subtitle file", count: 4096)
        let format = SubtitleFormats.reading(fileExtension: url.pathExtension)
            ?? SubtitleFormats.recognised(TextDecoding.preview(head).split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init))
        return try format.forEachCue(fileAt: url, head: head, limit: limit, body)
    }

    /// `forEachCue` for a format read whole (up to `read`'s bound).
    static func forEachCueReadWhole(fileAt url: URL, _ body: (Cue) throws -> Void) throws -> (format: SubtitleFormat, encoding: TextEncoding, warnings: [String]) {
        let document = try read(fileAt: url)
        try document.cues.forEach(body)
        return (document.format, document.encoding, document.warnings)
    }

    /// Calls `body` with each blank-line-separated block of a file, holding one at a time.
    static func forEachBlock(ofFileAt url: URL, head: Data, limit: Int?, _ body: ((line: Int, lines: [String])) throws -> Void) throws -> TextEncoding {
        var splitter = BlockSplitter()
        let encoding = try forEachLine(ofFileAt: url, head: head, limit: limit) { line, number in
            if let block = splitter.add(line, number: number) { try body(block) }
        }
        if let block = splitter.finish() { try body(block) }
        return encoding
    }

    /// Calls `body` with each `Dialogue` event of an ASS script in file order, the notice's
    /// included, each checked as `script` checks it, holding one at a time. Returns the script's
    /// `headerText` (its styles) and how it was read. `limit` bounds the file's size as `read` does.
    public static func forEachEvent(ofScriptAt url: URL, limit: Int? = nil, _ body: (ASSDocument.Record) throws -> Void) throws -> (header: String, encoding: TextEncoding) {
        var before: [String] = []
        var inEvents = false
        let encoding = try forEachScriptLine(ofFileAt: url, head: try UserFile.head(url, what: "subtitle file", count: 4096), limit: limit) { line, event in
            inEvents = inEvents || ASSDocument.Section.opened(by: line) == .events
            if !inEvents { before.append(line) }
            if let event { try body(event.record) }
        }
        return (ASSDocument.headerText(before), encoding)
    }

    /// Each line of an ASS script with the event it holds, checked.
    static func forEachScriptLine(ofFileAt url: URL, head: Data, limit: Int?, _ body: (String, ASSReader.Event?) throws -> Void) throws -> TextEncoding {
        var events = ASSReader.Events()
        let encoding = try forEachLine(ofFileAt: url, head: head, limit: limit) { line, number in
            try body(line, try events.add(line, index: number - 1))
        }
        try events.finish()
        return encoding
    }

    /// Calls `body` with each line of a subtitle file and its number (from 1), decoded as `read`
    /// decodes the file whole (`head` is its start), a piece at a time. 8-bit text is read twice:
    /// once to choose its encoding, once to decode it. Returns the encoding.
    private static func forEachLine(ofFileAt url: URL, head: Data, limit: Int?, _ body: (String, Int) throws -> Void) throws -> TextEncoding {
        let encoding: TextEncoding
        let mark: Int
        if let utf16 = TextDecoding.utf16Encoding(head) {
            (encoding, mark) = (utf16, 2)
        } else {
            var sniffer = TextDecoding.EightBitSniffer()
            try forEachLinePiece(of: url, limit: limit, encoding: nil) { try sniffer.feed($0) }
            (encoding, mark) = (try sniffer.encoding(), sniffer.hasBOM ? 3 : 0)
        }
        var number = 0
        var first = true
        try forEachLinePiece(of: url, limit: limit, encoding: encoding) { piece in
            let text = try TextDecoding.decode(first ? piece.dropFirst(mark) : piece, as: encoding)
            first = false
            var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            // A piece ends at a line break: the empty text after it begins the next piece's line.
            if text.unicodeScalars.last == "\n" || text.unicodeScalars.last == "\r" { lines.removeLast() }
            for line in lines {
                number += 1
                try body(String(line), number)
            }
        }
        return encoding
    }

    /// The file in pieces of about a megabyte, each ending at a line break (the last at the end)
    /// and holding whole characters of `encoding` (nil: 8-bit text, not yet known which).
    private static func forEachLinePiece(of url: URL, limit: Int?, encoding: TextEncoding?, _ body: (ArraySlice<UInt8>) throws -> Void) throws {
        let (handle, _) = try UserFile.openRegular(url, what: "subtitle file", limit: limit)
        defer { try? handle.close() }
        var carried: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: pieceBytes)
        while true {
            let n = buffer.withUnsafeMutableBytes { Foundation.read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw UserFileError.unreadable(path: url.path, what: "subtitle file", reason: String(cString: strerror(errno))) }
            guard n > 0 else { break }
            carried += buffer[..<n]
            guard let end = lineBreakEnd(carried, encoding: encoding) else {
                // No subtitle has a megabyte-long line; a file without line breaks is not one.
                guard carried.count <= pieceBytes * 4 else {
                    throw SubtitleReadError.undecodable(reason: "no line break in its first \(carried.count / 1_000_000) MB: not a subtitle file")
                }
                continue
            }
            try body(carried[..<end])
            carried.removeSubrange(..<end)
        }
        if !carried.isEmpty { try body(carried[...]) }
    }

    /// Where a piece of `bytes` can end: after its last line feed, else (old Mac files end lines
    /// with a carriage return alone) after a carriage return that is not the last unit, which
    /// could be the first half of a CR LF. Counted in code units for UTF-16 text.
    private static func lineBreakEnd(_ bytes: [UInt8], encoding: TextEncoding?) -> Int? {
        func end(_ units: [some BinaryInteger]) -> Int? {
            (units.lastIndex(of: 0x0A) ?? units.dropLast().lastIndex(of: 0x0D)).map { $0 + 1 }
        }
        guard encoding == .utf16LE || encoding == .utf16BE else { return end(bytes) }
        return end(TextDecoding.units(bytes.prefix(bytes.count / 2 * 2), littleEndian: encoding == .utf16LE)).map { $0 * 2 }
    }

    static let pieceBytes = 1 << 20

    /// Which of a cue block's lines is its timing: the first, or the second after an index or
    /// identifier (its value is ignored: numbering is often wrong).
    static func timingOffset(_ block: [String], line start: Int) throws -> Int {
        guard let offset = block.prefix(2).firstIndex(where: { $0.contains("-->") }) else { throw SubtitleReadError.textWithoutTiming(line: start) }
        return offset
    }

    /// Parses `start --> end [settings]`.
    static func timing(_ text: String, line: Int) throws -> (start: Int, end: Int) {
        guard let arrow = text.range(of: "-->") else { throw SubtitleReadError.malformedTiming(line: line, text: text) }
        let left = text[..<arrow.lowerBound].trimmingCharacters(in: .whitespaces)
        let right = text[arrow.upperBound...].split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
        guard let start = Timecode.parse(left), let end = Timecode.parse(right) else {
            throw SubtitleReadError.malformedTiming(line: line, text: text)
        }
        guard end <= Timecode.limitMilliseconds else {
            throw SubtitleReadError.malformedEvent(line: line, reason: "the time \"\(right.prefix(40))\" is more than \(Timecode.limitName) in: not a subtitle time")
        }
        guard end >= start else { throw SubtitleReadError.endBeforeStart(line: line) }
        return (start, end)
    }

    /// Removes markup such as `<i>`, `<c.yellow>`, `<00:00:01.000>` and `{\an8}`.
    static func stripTags(_ text: String) -> String {
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if let close = closingIndex(of: character, in: text, from: index) {
                index = text.index(after: close)
            } else {
                result.append(character)
                index = text.index(after: index)
            }
        }
        return result
    }

    private static func closingIndex(of opener: Character, in text: String, from index: String.Index) -> String.Index? {
        let next = text.index(after: index)
        guard next < text.endIndex else { return nil }
        switch opener {
        case "<":
            let lead = text[next]
            guard lead.isLetter || lead == "/" || lead.isNumber else { return nil }
            return text[next...].firstIndex(of: ">")
        case "{":
            guard text[next] == "\\" else { return nil }
            return text[next...].firstIndex(of: "}")
        default:
            return nil
        }
    }
}
