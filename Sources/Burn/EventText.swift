import Foundation
import Media

/// What libass draws from an event's text: override blocks `{...}` removed, `\N`/`\n`/`\h`
/// turned into spaces, and the fonts `\fn` overrides ask for.
struct EventText: Equatable {
    var visible: String
    var fontOverrides: [String]

    init(_ raw: String) {
        var visible = ""
        var fonts: [String] = []
        var rest = Substring(raw)
        while let first = rest.first {
            if first == "{", let close = rest.firstIndex(of: "}") {
                fonts += Self.fontOverrides(in: rest[rest.index(after: rest.startIndex)..<close])
                rest = rest[rest.index(after: close)...]
            } else if first == "\\", let next = rest.dropFirst().first, "Nnh".contains(next) {
                visible.append(" ")
                rest = rest.dropFirst(2)
            } else {
                visible.append(first)
                rest = rest.dropFirst()
            }
        }
        self.visible = visible
        fontOverrides = fonts
    }

    private static func fontOverrides(in block: Substring) -> [String] {
        block.split(separator: "\\").compactMap { tag in
            guard tag.hasPrefix("fn") else { return nil }
            let name = tag.dropFirst(2).trimmingCharacters(in: .whitespaces)
            return name.isEmpty ? nil : name
        }
    }

    /// Characters that need a glyph: format controls such as the word joiner and whitespace draw nothing.
    var drawnCharacters: [Character] {
        var seen = Set<Character>()
        return visible.filter { c in
            guard c.unicodeScalars.contains(where: Self.needsGlyph) else { return false }
            return seen.insert(c).inserted
        }
    }

    static func needsGlyph(_ scalar: Unicode.Scalar) -> Bool {
        let p = scalar.properties
        return !(p.isWhitespace || p.isDefaultIgnorableCodePoint || p.generalCategory == .control || p.generalCategory == .format)
    }
}
