import CapforgeCore

enum ASSReader {
    /// Style of the whole-file quality notice Capforge adds; it is not a caption.
    static let noticeStyle = ASSText.noticeStyle
    static let defaultEventFormat = ["Layer", "Start", "End", "Style", "Name", "MarginL", "MarginR", "MarginV", "Effect", "Text"]

    static func cues(_ lines: [String]) throws -> [Cue] {
        guard let first = lines.first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }),
              first.trimmingCharacters(in: .whitespaces).lowercased() == "[script info]" else {
            throw SubtitleReadError.missingHeader(format: "ASS", expected: "[Script Info]")
        }
        var section = ""
        var format = defaultEventFormat
        var cues: [Cue] = []
        for (offset, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = line.lowercased()
                continue
            }
            guard section == "[events]", let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...]
            if key == "format" {
                format = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                guard format.last == "Text", ["Start", "End"].allSatisfy(format.contains) else {
                    throw SubtitleReadError.malformedEvent(line: offset + 1, reason: "the Format line must list Start and End and end with Text")
                }
            } else if key == "dialogue", let cue = try event(value, format: format, line: offset + 1) {
                cues.append(cue)
            }
        }
        return cues
    }

    private static func event(_ value: Substring, format: [String], line: Int) throws -> Cue? {
        let fields = value.split(separator: ",", maxSplits: format.count - 1, omittingEmptySubsequences: false)
        guard fields.count == format.count else {
            throw SubtitleReadError.malformedEvent(line: line, reason: "expected \(format.count) fields as the Format line says, found \(fields.count)")
        }
        func field(_ name: String) -> String? {
            format.firstIndex(of: name).map { fields[$0].trimmingCharacters(in: .whitespaces) }
        }
        if field("Style") == noticeStyle { return nil }
        guard let start = Timecode.parse(field("Start") ?? ""), let end = Timecode.parse(field("End") ?? "") else {
            throw SubtitleReadError.malformedTiming(line: line, text: String(value))
        }
        guard end >= start else { throw SubtitleReadError.endBeforeStart(line: line) }
        let text = String(fields[fields.count - 1])
        let lines = withoutOverrideBlocks(text)
            .replacingOccurrences(of: "\\N", with: "\n")
            .replacingOccurrences(of: "\\n", with: "\n")
            .replacingOccurrences(of: "\\h", with: "\u{00A0}")
            .split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return Cue(start: start, end: end, lines: lines)
    }
}

extension ASSReader {
    /// Drops every `{...}` block: override tags and comments alike.
    static func withoutOverrideBlocks(_ text: String) -> String {
        var result = ""
        var depth = 0
        for character in text {
            if character == "{" { depth += 1 } else if character == "}" && depth > 0 { depth -= 1 } else if depth == 0 { result.append(character) }
        }
        return result
    }
}
