import CapforgeCore

enum WebVTTReader {
    static func cues(_ lines: [String]) throws -> [Cue] {
        try checkHeader(lines.first)
        // The first block is the header with its metadata.
        return try SubtitleReader.blocks(lines).dropFirst().compactMap { start, block in try cue(block, line: start) }
    }

    /// The file's first line must say WEBVTT (and may go on after a space or tab).
    static func checkHeader(_ first: String?) throws {
        guard let first, first.hasPrefix("WEBVTT"),
              first.count == 6 || first.dropFirst(6).first.map({ $0 == " " || $0 == "\t" }) == true else {
            throw SubtitleReadError.missingHeader(format: "WebVTT", expected: "a WEBVTT line")
        }
    }

    /// The cue a block after the header holds; nil for a NOTE, STYLE or REGION block.
    static func cue(_ block: [String], line start: Int) throws -> Cue? {
        if isComment(block) { return nil }
        let timingOffset = try SubtitleReader.timingOffset(block, line: start)
        let (from, to) = try SubtitleReader.timing(block[timingOffset], line: start + timingOffset)
        let text = block[(timingOffset + 1)...].map {
            unescape(SubtitleReader.stripTags($0)).trimmingCharacters(in: .whitespaces)
        }
        return Cue(start: from, end: to, lines: text.filter { !$0.isEmpty })
    }

    /// A NOTE, STYLE or REGION block: no cue, kept as written.
    static func isComment(_ block: [String]) -> Bool {
        let keyword = block[0].split(whereSeparator: \.isWhitespace).first ?? ""
        return ["NOTE", "STYLE", "REGION"].contains(keyword) && !block[0].contains("-->")
    }

    static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text
            .replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&nbsp;", with: "\u{00A0}")
            .replacingOccurrences(of: "&lrm;", with: "\u{200E}")
            .replacingOccurrences(of: "&rlm;", with: "\u{200F}")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
