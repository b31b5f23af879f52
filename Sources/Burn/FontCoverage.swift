import CFontconfig
import Captions

/// Which characters the installed fonts can draw, found the way libass's fontconfig provider
/// looks: the fonts fontconfig sorts for a family, whose combined coverage is what fallback reaches.
final class FontCoverage {
    private struct Request: Hashable {
        var family: String
        var bold: Bool
        var italic: Bool
    }

    private let config: OpaquePointer
    private var charsets: [Request: OpaquePointer] = [:]

    init() throws {
        guard let config = FcInitLoadConfigAndFonts() else { throw BurnError.fontconfigUnavailable }
        self.config = config
    }

    deinit {
        for charset in charsets.values { FcCharSetDestroy(charset) }
        FcConfigDestroy(config)
    }

    func covers(_ scalar: Unicode.Scalar, family: String, bold: Bool, italic: Bool) -> Bool {
        guard let charset = charset(for: Request(family: family, bold: bold, italic: italic)) else { return false }
        return FcCharSetHasChar(charset, FcChar32(scalar.value)) != 0
    }

    private func charset(for request: Request) -> OpaquePointer? {
        if let known = charsets[request] { return known }
        guard let pattern = FcPatternCreate() else { return nil }
        defer { FcPatternDestroy(pattern) }
        let added = request.family.withCString { name in
            name.withMemoryRebound(to: FcChar8.self, capacity: request.family.utf8.count + 1) { FcPatternAddString(pattern, FC_FAMILY, $0) }
        }
        guard added != 0,
              FcPatternAddInteger(pattern, FC_WEIGHT, request.bold ? FC_WEIGHT_BOLD : FC_WEIGHT_REGULAR) != 0,
              FcPatternAddInteger(pattern, FC_SLANT, request.italic ? FC_SLANT_ITALIC : FC_SLANT_ROMAN) != 0,
              FcConfigSubstitute(config, pattern, FcMatchPattern) != 0 else { return nil }
        FcDefaultSubstitute(pattern)
        var coverage: OpaquePointer? = nil
        var result = FcResultMatch
        guard let fonts = FcFontSort(config, pattern, FcBool(FcTrue), &coverage, &result) else { return nil }
        FcFontSetDestroy(fonts)
        guard let coverage else { return nil }
        charsets[request] = coverage
        return coverage
    }
}

/// Checks before encoding that every drawn character of the events has a font, so nothing burns in as tofu.
enum FontPreflight {
    private struct Face {
        var family: String
        var bold: Bool
        var italic: Bool

        init(_ style: ASSDocument.Record) {
            func flag(_ name: String) -> Bool { (Int(style[name] ?? "0") ?? 0) != 0 }
            var font = style["Fontname"] ?? ""
            if font.hasPrefix("@") { font.removeFirst() }  // '@' asks for vertical layout, not another family
            family = font.isEmpty ? "sans-serif" : font
            bold = flag("Bold")
            italic = flag("Italic")
        }

        init(family: String, bold: Bool, italic: Bool) {
            self.family = family
            self.bold = bold
            self.italic = italic
        }
    }

    /// Characters no font covers, in order of first use, with the families the styles asked for.
    static func missing(in script: ASSDocument, fonts: FontCoverage) -> (characters: [Character], families: [String]) {
        let faces = Dictionary(script.styles.map { (($0["Name"] ?? "").lowercased(), Face($0)) }, uniquingKeysWith: { first, _ in first })
        let fallback = faces["default"] ?? Face(family: "sans-serif", bold: false, italic: false)
        var missing: [Character] = []
        var seen = Set<Character>()
        var families: [String] = []
        for event in script.events {
            let face = faces[event.style.lowercased()] ?? fallback
            let text = ASSEventText(event.text)
            let eventFamilies = [face.family] + text.fontOverrides
            for family in eventFamilies where !families.contains(family) { families.append(family) }
            for character in text.drawnCharacters where !seen.contains(character) {
                let drawable = character.unicodeScalars.filter(ASSEventText.needsGlyph).allSatisfy { scalar in
                    eventFamilies.contains { fonts.covers(scalar, family: $0, bold: face.bold, italic: face.italic) }
                }
                if !drawable {
                    missing.append(character)
                    seen.insert(character)
                }
            }
        }
        return (missing, families)
    }
}
