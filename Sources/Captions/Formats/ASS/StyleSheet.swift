import Foundation

/// A caption style file from `Styles/`: ASS style lines written for a 1080-line picture.
public struct StyleSheet: Sendable, Equatable {
    public static let defaultName = "default"
    public static let fileExtension = "style"
    static let referenceHeight = 1080.0
    static let requiredStyles = ["Default", "Basic", "Notice"]
    static let scaledFields: Set<String> = ["Fontsize", "Spacing", "Outline", "Shadow", "MarginL", "MarginR", "MarginV"]

    public let name: String
    /// Field names of the `Format:` line.
    let format: [String]
    /// Values of each `Style:` line, in file order.
    let styles: [[String]]
    /// `&HAABBGGRR` colour for low-confidence words.
    let lowConfidenceColour: String

    public static func load(named name: String, in folder: URL) throws -> StyleSheet {
        let url = folder.appendingPathComponent("\(name).\(fileExtension)")
        guard let data = FileManager.default.contents(atPath: url.path), let text = String(data: data, encoding: .utf8) else {
            let available = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            let names = available.filter { $0.hasSuffix(".\(fileExtension)") }.map { String($0.dropLast(fileExtension.count + 1)) }.sorted()
            throw StyleError.notFound(name: name, folder: folder.path, available: names)
        }
        return try parse(text, name: name, path: url.path)
    }

    /// Loads from the first `Styles` folder `StyleLocator` finds.
    public static func load(named name: String = defaultName) throws -> StyleSheet {
        try load(named: name, in: StyleLocator.folder())
    }

    static func parse(_ text: String, name: String, path: String) throws -> StyleSheet {
        var format: [String] = []
        var styles: [[String]] = []
        var colour: String?
        for (offset, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix(";") || line.hasPrefix("#") { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw StyleError.malformed(path: path, line: offset + 1, reason: "expected 'Key: value'")
            }
            let key = String(line[..<colon])
            let value = ASSDocument.value(of: key, in: line) ?? ""
            switch key {
            case "Format":
                format = ASSDocument.fields(value)
            case "Style":
                let fields = value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                guard !format.isEmpty, fields.count == format.count else {
                    throw StyleError.malformed(path: path, line: offset + 1, reason: "a Style line needs a Format line before it and one value per field")
                }
                styles.append(fields)
            case "LowConfidenceColour":
                colour = value.trimmingCharacters(in: .whitespaces)
            default:
                throw StyleError.malformed(path: path, line: offset + 1, reason: "unknown key '\(key)'")
            }
        }
        guard let nameIndex = format.firstIndex(of: "Name") else {
            throw StyleError.malformed(path: path, line: 0, reason: "no Format line with a Name field")
        }
        let names = Set(styles.map { $0[nameIndex] })
        for required in requiredStyles where !names.contains(required) {
            throw StyleError.missingStyle(path: path, style: required)
        }
        return StyleSheet(name: name, format: format, styles: styles, lowConfidenceColour: colour ?? "&H0000D7FF")
    }

    /// Each style's values for a picture `height` lines tall, in `format` order.
    func scaledStyles(height: Int) -> [[String]] {
        let factor = Double(height) / Self.referenceHeight
        return styles.map { fields in
            zip(format, fields).map { field, value -> String in
                guard Self.scaledFields.contains(field), let number = Double(value) else { return value }
                let result = number * factor
                return field.hasPrefix("Margin") ? String(Int(result.rounded())) : String(format: "%g", (result * 10).rounded() / 10)
            }
        }
    }

    /// The `Notice` style's values by field name, for a script `height` lines tall that lacks one.
    public func noticeStyle(height: Int) -> [String: String] {
        let named = scaledStyles(height: height).map { Dictionary(zip(format, $0), uniquingKeysWith: { first, _ in first }) }
        return named.first { ASSDocument.isNotice($0["Name"] ?? "") } ?? [:]
    }
}

public enum StyleError: Error, CustomStringConvertible, Equatable {
    case notFound(name: String, folder: String, available: [String])
    case folderNotFound(searched: [String])
    case malformed(path: String, line: Int, reason: String)
    case missingStyle(path: String, style: String)

    public var description: String {
        switch self {
        case .notFound(let name, let folder, let available):
            return "caption style '\(name)' not found in \(folder); available: \(available.isEmpty ? "none" : available.joined(separator: ", "))"
        case .folderNotFound(let searched):
            return "no Styles folder found (looked in: \(searched.joined(separator: ", "))); set CAPFORGE_STYLES to the folder holding the .style files"
        case .malformed(let path, let line, let reason):
            return "\(path):\(line): \(reason)"
        case .missingStyle(let path, let style):
            return "\(path) has no '\(style)' style; every style file needs Default, Basic and Notice"
        }
    }
}
