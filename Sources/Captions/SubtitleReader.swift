import CapforgeCore
import Foundation

/// A subtitle file as read: its cues in time order and how its bytes were decoded.
public struct SubtitleDocument: Sendable, Equatable {
    public var format: SubtitleFormat
    public var encoding: TextEncoding
    public var cues: [Cue]
}

/// Reads SRT, WebVTT and ASS, forgiving the usual damage (BOM, CRLF, missing final newline,
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
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        let format = format.flatMap { $0 == .json ? nil : $0 } ?? detect(lines)
        let cues: [Cue]
        switch format {
        case .vtt: cues = try WebVTTReader.cues(lines)
        case .ass: cues = try ASSReader.cues(ASSDocument(lines: lines))
        case .srt, .json: cues = try SRTReader.cues(lines)
        }
        return SubtitleDocument(format: format, encoding: encoding, cues: cues.enumerated().sorted {
            ($0.element.start, $0.offset) < ($1.element.start, $1.offset)
        }.map(\.element))
    }

    private static func detect(_ lines: [String]) -> SubtitleFormat {
        let first = lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }?.trimmingCharacters(in: .whitespaces) ?? ""
        if first.hasPrefix("WEBVTT") { return .vtt }
        if first.lowercased() == "[script info]" { return .ass }
        return .srt
    }

    /// Groups lines into blocks separated by blank lines, each with its first line's number.
    static func blocks(_ lines: [String], from start: Int = 0) -> [(line: Int, lines: [String])] {
        var blocks: [(line: Int, lines: [String])] = []
        var current: [String] = []
        var currentLine = 0
        for index in start..<lines.count {
            let line = lines[index]
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                if !current.isEmpty { blocks.append((currentLine, current)) }
                current = []
            } else {
                if current.isEmpty { currentLine = index + 1 }
                current.append(line)
            }
        }
        if !current.isEmpty { blocks.append((currentLine, current)) }
        return blocks
    }

    /// Parses `start --> end [settings]`.
    static func timing(_ text: String, line: Int) throws -> (start: Int, end: Int) {
        guard let arrow = text.range(of: "-->") else { throw SubtitleReadError.malformedTiming(line: line, text: text) }
        let left = text[..<arrow.lowerBound].trimmingCharacters(in: .whitespaces)
        let right = text[arrow.upperBound...].split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
        guard let start = Timecode.parse(left), let end = Timecode.parse(right) else {
            throw SubtitleReadError.malformedTiming(line: line, text: text)
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
