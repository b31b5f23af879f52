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
        try read(contents(of: url), format: SubtitleFormat(fileExtension: url.pathExtension))
    }

    /// An ASS file whole, styles and all (for the burn-in), checked as `read` checks it.
    public static func script(fileAt url: URL) throws -> ASSDocument {
        let document = ASSDocument(parsing: try TextDecoding.decode(contents(of: url)).text)
        _ = try ASSReader.cues(document)
        return document
    }

    /// A feature film's subtitles are well under a megabyte; the bound keeps a wrong path
    /// (a video, a disk image) from being read whole.
    private static func contents(of url: URL) throws -> Data {
        try UserFile.read(url, what: "subtitle file", limit: 64_000_000)
    }

    /// Reads bytes; without a format, it is recognised from the content.
    public static func read(_ data: Data, format: SubtitleFormat? = nil) throws -> SubtitleDocument {
        let (text, encoding) = try TextDecoding.decode(data)
        return try read(text, encoding: encoding, format: format)
    }

    /// Reads text already decoded from `encoding`.
    static func read(_ text: String, encoding: TextEncoding, format: SubtitleFormat?) throws -> SubtitleDocument {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        // Formats written only (Capforge's JSON, binary STL) are recognised from the content.
        let format = format.flatMap { $0.isReadable ? $0 : nil } ?? detect(lines)
        let cues: [Cue]
        var warnings: [String] = []
        switch format {
        case .vtt: cues = try WebVTTReader.cues(lines)
        case .ass: cues = try ASSReader.cues(ASSDocument(lines: lines))
        case .srt, .json, .stl: cues = try SRTReader.cues(lines)
        case .ttml, .ebuTTD: (cues, warnings) = try TTMLReader.read(text)
        case .scc: cues = try SCCReader.read(text)
        }
        return SubtitleDocument(format: format, encoding: encoding, cues: cues.enumerated().sorted {
            ($0.element.start, $0.offset) < ($1.element.start, $1.offset)
        }.map(\.element), warnings: warnings)
    }

    private static func detect(_ lines: [String]) -> SubtitleFormat {
        let first = lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }?.trimmingCharacters(in: .whitespaces) ?? ""
        if first.hasPrefix("WEBVTT") { return .vtt }
        if first.lowercased() == "[script info]" { return .ass }
        if first.hasPrefix("<?xml") || first.hasPrefix("<tt") { return .ttml }
        if first.hasPrefix("Scenarist_SCC") { return .scc }
        return .srt
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

    /// Calls `body` with each cue of a subtitle file in file order, holding one cue at a time: an
    /// SRT or WebVTT file in 8-bit text is read in pieces (twice: once to choose its encoding as
    /// `read` would, once to parse), so its size does not matter. ASS, XML and UTF-16 files are
    /// read whole (up to `read`'s bound) and handed on in time order. Returns how the file was read
    /// and what reading it assumed or left out.
    public static func forEachCue(fileAt url: URL, _ body: (Cue) throws -> Void) throws -> (format: SubtitleFormat, encoding: TextEncoding, warnings: [String]) {
        let head = try UserFile.head(url, what: "subtitle file", count: 4096)
        let named = SubtitleFormat(fileExtension: url.pathExtension).flatMap { $0.isReadable ? $0 : nil }
        let headLines = String(decoding: head, as: UTF8.self).split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        let format = named ?? detect(headLines)
        guard format == .srt || format == .vtt, !TextDecoding.isUTF16(head) else {
            let document = try read(fileAt: url)
            try document.cues.forEach(body)
            return (document.format, document.encoding, document.warnings)
        }
        var sniffer = TextDecoding.EightBitSniffer()
        try forEachLinePiece(of: url) { try sniffer.feed($0) }
        let encoding = try sniffer.encoding()
        var splitter = BlockSplitter()
        var number = 0
        var first = true
        // WebVTT's first block is its header, on the first line; its NOTE, STYLE and REGION blocks hold no cue.
        var header = format == .vtt
        func take(_ block: (line: Int, lines: [String])) throws {
            guard !header else {
                try WebVTTReader.checkHeader(block.line == 1 ? block.lines.first : nil)
                header = false
                return
            }
            let cue = format == .vtt ? try WebVTTReader.cue(block.lines, line: block.line) : try SRTReader.cue(block.lines, line: block.line)
            if let cue { try body(cue) }
        }
        try forEachLinePiece(of: url) { piece in
            let bytes = first && sniffer.hasBOM ? piece.dropFirst(3) : piece
            first = false
            var lines = try TextDecoding.decode(bytes, as: encoding).split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            // A piece ends at a line break: the empty text after it begins the next piece's line.
            if piece.last == 0x0A || piece.last == 0x0D { lines.removeLast() }
            for line in lines {
                number += 1
                if let block = splitter.add(String(line), number: number) { try take(block) }
            }
        }
        if let block = splitter.finish() { try take(block) }
        if header { try WebVTTReader.checkHeader(nil) }
        return (format, encoding, [])
    }

    /// The file in pieces of about a megabyte, each ending at a line break (the last at the end).
    private static func forEachLinePiece(of url: URL, _ body: (ArraySlice<UInt8>) throws -> Void) throws {
        let (handle, _) = try UserFile.openRegular(url, what: "subtitle file")
        defer { try? handle.close() }
        var carried: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: pieceBytes)
        while true {
            let n = buffer.withUnsafeMutableBytes { Foundation.read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw UserFileError.unreadable(path: url.path, what: "subtitle file", reason: String(cString: strerror(errno))) }
            guard n > 0 else { break }
            carried += buffer[..<n]
            // Old Mac files end lines with a carriage return alone.
            guard let lastFeed = carried.lastIndex(of: 0x0A) ?? carried.lastIndex(of: 0x0D) else {
                // No subtitle has a megabyte-long line; a file without line breaks is not one.
                guard carried.count <= pieceBytes * 4 else {
                    throw SubtitleReadError.undecodable(reason: "no line break in its first \(carried.count / 1_000_000) MB: not a subtitle file")
                }
                continue
            }
            try body(carried[...lastFeed])
            carried.removeSubrange(...lastFeed)
        }
        if !carried.isEmpty { try body(carried[...]) }
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
