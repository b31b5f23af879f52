import CapforgeCore
import Foundation
import Media

/// An ASS script as lines, with just enough structure for the burn: the styles' fonts, the
/// events' visible text, and the `Notice` events. Lines the burn does not touch pass through verbatim.
struct SubtitleScript: Equatable {
    static let noticeStyle = ASSText.noticeStyle
    static let stylesSections: Set<String> = ["[v4+ styles]", "[v4 styles]"]
    static let defaultStyleFormat = ["Name", "Fontname", "Fontsize", "PrimaryColour", "SecondaryColour", "OutlineColour", "BackColour",
                                     "Bold", "Italic", "Underline", "StrikeOut", "ScaleX", "ScaleY", "Spacing", "Angle",
                                     "BorderStyle", "Outline", "Shadow", "Alignment", "MarginL", "MarginR", "MarginV", "Encoding"]
    static let defaultEventFormat = ["Layer", "Start", "End", "Style", "Name", "MarginL", "MarginR", "MarginV", "Effect", "Text"]

    struct Style: Equatable {
        var name: String
        var font: String
        var bold: Bool
        var italic: Bool
    }

    struct Event: Equatable {
        var line: Int
        var style: String
        var text: String
    }

    private(set) var lines: [String]

    init(_ text: String) {
        lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }).map(String.init)
    }

    var text: String { lines.joined(separator: "\n") + "\n" }

    /// Section header (lowercased) of each line.
    private var sections: [String] {
        var current = ""
        return lines.map { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("[") && trimmed.hasSuffix("]") { current = trimmed.lowercased() }
            return current
        }
    }

    private func format(in section: (String) -> Bool, default fallback: [String]) -> [String] {
        for (line, sec) in zip(lines, sections) where section(sec) {
            if let value = Self.value(of: "Format", in: line) {
                return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            }
        }
        return fallback
    }

    var styleFormat: [String] { format(in: { Self.stylesSections.contains($0) }, default: Self.defaultStyleFormat) }
    var eventFormat: [String] { format(in: { $0 == "[events]" }, default: Self.defaultEventFormat) }

    var styles: [Style] {
        let format = styleFormat
        return zip(lines, sections).compactMap { line, section in
            guard Self.stylesSections.contains(section), let value = Self.value(of: "Style", in: line) else { return nil }
            let fields = Self.fields(value, count: format.count, names: format)
            func flag(_ name: String) -> Bool { (Int(fields[name] ?? "0") ?? 0) != 0 }
            var font = fields["fontname"] ?? ""
            if font.hasPrefix("@") { font.removeFirst() }  // '@' asks for vertical layout, not another family
            return Style(name: fields["name"] ?? "", font: font, bold: flag("bold"), italic: flag("italic"))
        }
    }

    var events: [Event] {
        let format = eventFormat
        return zip(lines.indices, sections).compactMap { index, section in
            guard section == "[events]", let value = Self.value(of: "Dialogue", in: lines[index]) else { return nil }
            let fields = Self.fields(value, count: format.count, names: format)
            return Event(line: index, style: fields["style"] ?? "", text: fields["text"] ?? "")
        }
    }

    var noticeEvents: [Event] { events.filter { Self.isNotice($0.style) } }

    /// The script's PlayResY; libass assumes 288 without one.
    var playResY: Int {
        for (line, section) in zip(lines, sections) where section == "[script info]" {
            if let value = Self.value(of: "PlayResY", in: line), let height = Int(value.trimmingCharacters(in: .whitespaces)), height > 0 {
                return height
            }
        }
        return 288
    }

    static func isNotice(_ style: String) -> Bool {
        style.trimmingCharacters(in: .whitespaces).caseInsensitiveCompare(noticeStyle) == .orderedSame
    }

    // MARK: editing

    mutating func removeLines(_ indices: [Int]) {
        for index in indices.sorted(by: >) { lines.remove(at: index) }
    }

    mutating func replaceLine(_ index: Int, with line: String) {
        lines[index] = line
    }

    /// Appends `line` at the end of the section, creating the section (and a Format line) when absent.
    mutating func append(_ line: String, toSection header: String, accepting: Set<String>, format: [String]) {
        let secs = sections
        if let last = secs.lastIndex(where: { accepting.contains($0) }) {
            // Insert after the section's last non-blank line, keeping any blank separator after it.
            var position = last
            while position > 0, lines[position].trimmingCharacters(in: .whitespaces).isEmpty, accepting.contains(secs[position - 1]) {
                position -= 1
            }
            lines.insert(line, at: position + 1)
        } else {
            if lines.last?.isEmpty == true { lines.removeLast() }
            lines += ["", header, "Format: " + format.joined(separator: ", "), line]
        }
    }

    // MARK: parsing helpers

    /// The text after `Key:` when the line starts with that key.
    static func value(of key: String, in line: String) -> String? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        guard line[..<colon].trimmingCharacters(in: .whitespaces).caseInsensitiveCompare(key) == .orderedSame else { return nil }
        return String(line[line.index(after: colon)...].drop { $0 == " " })
    }

    /// Splits into `count` comma-separated fields; the last takes the rest (event text holds commas).
    static func fields(_ value: String, count: Int, names: [String]) -> [String: String] {
        let parts = value.split(separator: ",", maxSplits: max(count - 1, 0), omittingEmptySubsequences: false)
        var result: [String: String] = [:]
        for (name, part) in zip(names, parts) {
            result[name.lowercased()] = name.caseInsensitiveCompare("Text") == .orderedSame ? String(part) : part.trimmingCharacters(in: .whitespaces)
        }
        return result
    }
}
