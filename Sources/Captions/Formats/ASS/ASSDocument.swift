/// An ASS script: lines in sections, with the `Style:` and `Dialogue:` lines read as records
/// whose values are named by the section's `Format:` line. The writer builds one, the reader
/// and the burn-in read and edit one; lines nothing edits stay as written, so a user's script
/// burns as it was authored.
public struct ASSDocument: Sendable, Equatable {
    /// The style of the always-visible "basic recognition" notice event: the writer adds it,
    /// the burn-in manages it, readers leave it out of the captions.
    public static let noticeStyle = "Notice"
    /// libass's defaults, used when a section has no `Format:` line.
    public static let defaultStyleFormat = ["Name", "Fontname", "Fontsize", "PrimaryColour", "SecondaryColour", "OutlineColour", "BackColour",
                                            "Bold", "Italic", "Underline", "StrikeOut", "ScaleX", "ScaleY", "Spacing", "Angle",
                                            "BorderStyle", "Outline", "Shadow", "Alignment", "MarginL", "MarginR", "MarginV", "Encoding"]
    public static let defaultEventFormat = ["Layer", "Start", "End", "Style", "Name", "MarginL", "MarginR", "MarginV", "Effect", "Text"]

    public enum Section: Sendable {
        case scriptInfo, styles, events, other

        init(header: String) {
            switch header.lowercased() {
            case "[script info]": self = .scriptInfo
            case "[v4+ styles]", "[v4 styles]": self = .styles
            case "[events]": self = .events
            default: self = .other
            }
        }

        var header: String {
            switch self {
            case .scriptInfo: "[Script Info]"
            case .styles: "[V4+ Styles]"
            case .events: "[Events]"
            case .other: ""
            }
        }

        var defaultFormat: [String] { self == .styles ? ASSDocument.defaultStyleFormat : ASSDocument.defaultEventFormat }

        /// The section a `[…]` header line opens; nil for any other line.
        static func opened(by line: String) -> Section? {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("[") && trimmed.hasSuffix("]") ? Section(header: trimmed) : nil
        }
    }

    /// One `Key: value, value, …` line of the styles or events, its values named by `format`.
    public struct Record: Sendable, Equatable {
        /// Index of the line in the document.
        public let line: Int
        public let key: String
        public let format: [String]
        /// Trimmed, except the text, which is kept whole (it may hold commas and spaces). Fewer
        /// than `format` when the line is short of fields.
        public var values: [String]

        public var isComplete: Bool { values.count == format.count }

        public subscript(field: String) -> String? {
            get { index(of: field).flatMap { $0 < values.count ? values[$0] : nil } }
            set {
                guard let position = index(of: field), position < values.count else { return }
                values[position] = newValue ?? ""
            }
        }

        public var style: String { self["Style"] ?? "" }
        public var text: String { self["Text"] ?? "" }
        public var isNotice: Bool { ASSDocument.isNotice(self["Style"] ?? self["Name"] ?? "") }
        /// An event's `Start` and `End` in milliseconds, nil when not a time.
        public var startMilliseconds: Int? { self["Start"].flatMap(Timecode.parse) }
        public var endMilliseconds: Int? { self["End"].flatMap(Timecode.parse) }

        var rendered: String { ASSDocument.recordLine(key, values: values) }

        private func index(of field: String) -> Int? {
            format.firstIndex { $0.caseInsensitiveCompare(field) == .orderedSame }
        }
    }

    public private(set) var lines: [String]

    public init(lines: [String]) {
        self.lines = lines
    }

    public init(parsing text: String) {
        self.init(lines: text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init))
    }

    public var text: String { lines.joined(separator: "\n") + "\n" }

    public static func isNotice(_ style: String) -> Bool {
        style.trimmingCharacters(in: .whitespaces).caseInsensitiveCompare(noticeStyle) == .orderedSame
    }

    // MARK: reading

    /// The section each line belongs to (a header belongs to its own section).
    private var sections: [Section?] {
        var current: Section?
        return lines.map { line in
            current = Section.opened(by: line) ?? current
            return current
        }
    }

    /// The `Format:` lines of a section, with their line indices.
    public func formats(in section: Section) -> [(line: Int, fields: [String])] {
        zip(lines.indices, sections).compactMap { index, owner in
            guard owner == section, let value = Self.value(of: "Format", in: lines[index]) else { return nil }
            return (index, Self.fields(value))
        }
    }

    /// The records with `key` in a section, each read with the `Format:` line above it.
    public func records(_ key: String, in section: Section) -> [Record] {
        var scanner = RecordScanner(key, in: section)
        return lines.indices.compactMap { index in
            if case .record(let record) = scanner.scan(lines[index], index: index) { record } else { nil }
        }
    }

    /// A section's `Format:` lines and records of one key, read a line at a time in order (a
    /// script too large to hold is read so).
    struct RecordScanner {
        enum Line { case format([String]), record(Record) }

        let key: String
        let section: Section
        private var current: Section?
        private var format: [String]

        init(_ key: String, in section: Section) {
            self.key = key
            self.section = section
            format = section.defaultFormat
        }

        /// What line `index` is in the section; nil when it is outside it or neither.
        mutating func scan(_ line: String, index: Int) -> Line? {
            current = Section.opened(by: line) ?? current
            guard current == section else { return nil }
            if let value = ASSDocument.value(of: "Format", in: line) {
                format = ASSDocument.fields(value)
                return .format(format)
            }
            return ASSDocument.value(of: key, in: line).map { .record(Record(line: index, key: key, format: format, values: ASSDocument.values($0, format: format))) }
        }
    }

    public var styles: [Record] { records("Style", in: .styles) }
    public var events: [Record] { records("Dialogue", in: .events) }

    /// A `[Script Info]` value.
    public func info(_ key: String) -> String? {
        zip(lines, sections).lazy.compactMap { line, section in
            section == .scriptInfo ? Self.value(of: key, in: line)?.trimmingCharacters(in: .whitespaces) : nil
        }.first
    }

    /// The script without its events, ending in `[Events]` and the standard `Format:` line: what
    /// Matroska and libavcodec keep of an ASS track apart from its events. Sections after the
    /// events (embedded fonts, graphics) are left out.
    public var headerText: String {
        Self.headerText(lines.prefix { Section.opened(by: $0) != .events })
    }

    /// `headerText` of a script whose lines before its events are `before`.
    static func headerText(_ before: some Collection<String>) -> String {
        var header = Array(before.reversed().drop { $0.trimmingCharacters(in: .whitespaces).isEmpty }.reversed())
        header += ["", Section.events.header, formatLine(defaultEventFormat)]
        return header.joined(separator: "\n") + "\n"
    }

    /// The script's PlayResY; libass assumes 288 without one.
    public var playResY: Int {
        info("PlayResY").flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 288
    }

    // MARK: editing

    public mutating func replace(_ record: Record) {
        lines[record.line] = record.rendered
    }

    public mutating func remove(_ records: [Record]) {
        for index in records.map(\.line).sorted(by: >) { lines.remove(at: index) }
    }

    /// Appends a record at the end of its section (creating the section and its `Format:` line
    /// when absent), its values taken by field name.
    public mutating func append(_ key: String, values: [String: String], to section: Section) {
        let owners = sections
        let format = formats(in: section).last?.fields ?? section.defaultFormat
        let line = Self.recordLine(key, values: values, format: format)
        if let last = owners.lastIndex(where: { $0 == section }) {
            // After the section's last non-blank line, keeping the blank line that separates it from the next.
            var position = last
            while position > 0, lines[position].trimmingCharacters(in: .whitespaces).isEmpty, owners[position - 1] == section { position -= 1 }
            lines.insert(line, at: position + 1)
        } else {
            if lines.last?.isEmpty == true { lines.removeLast() }
            lines += ["", section.header, Self.formatLine(format), line]
        }
    }

    // MARK: line syntax

    /// The text after `Key:` when the line starts with that key.
    public static func value(of key: String, in line: String) -> Substring? {
        guard let colon = line.firstIndex(of: ":"),
              line[..<colon].trimmingCharacters(in: .whitespaces).caseInsensitiveCompare(key) == .orderedSame else { return nil }
        return line[line.index(after: colon)...].drop { $0 == " " }
    }

    public static func formatLine(_ fields: [String]) -> String { "Format: " + fields.joined(separator: ", ") }

    public static func recordLine(_ key: String, values: [String]) -> String { "\(key): " + values.joined(separator: ",") }

    /// A record line from values by field name (case-insensitive); fields not given are "0",
    /// or empty for Name and Effect.
    public static func recordLine(_ key: String, values: [String: String], format: [String]) -> String {
        let named = Dictionary(values.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        return recordLine(key, values: format.map { named[$0.lowercased()] ?? (["name", "effect"].contains($0.lowercased()) ? "" : "0") })
    }

    /// A `Format:` line's field names.
    public static func fields(_ value: Substring) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// A record's values: one per format field at most, the last taking the rest of the line
    /// (event text holds commas).
    static func values(_ value: Substring, format: [String]) -> [String] {
        let parts = value.split(separator: ",", maxSplits: max(format.count - 1, 0), omittingEmptySubsequences: false)
        return zip(format, parts).map { name, part in
            name.caseInsensitiveCompare("Text") == .orderedSame ? String(part) : part.trimmingCharacters(in: .whitespaces)
        }
    }
}
