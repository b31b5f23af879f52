import Foundation

/// Caption rules per language, from Netflix's Timed Text Style Guides (partnerhelp.netflixstudios.com:
/// "General Requirements" and one guide per language). Every profile keeps the general
/// requirements: two lines at most, 5/6 s to 7 s on screen, two frames between cues; what
/// differs by language is below. `--profile auto` (the default) picks by the caption language.
extension CaptionProfile {
    static let byLanguage: [String: CaptionProfile] = {
        // French, German, Castilian Spanish, Italian, Brazilian Portuguese and Dutch guides:
        // 42 characters per line, and an adult reading speed of 17 characters per second
        // (the English guide allows 20).
        let european = ["fr", "de", "es", "it", "pt", "nl"].map { code in
            (code, CaptionProfile(name: "netflix-\(code)", maxCharactersPerLine: 42, maxCharactersPerSecond: 17, targetCharactersPerSecond: 15))
        }
        // Chinese, Japanese and Korean count a full-width character as one and a half-width one
        // (Latin letters, spaces, punctuation) as a half, for line length and reading speed alike.
        let eastAsian: [(String, CaptionProfile)] = [
            // Japanese guide: at most 13 full-width characters per horizontal line; 4 characters a second.
            ("ja", CaptionProfile(name: "netflix-ja", maxCharactersPerLine: 13, maxCharactersPerSecond: 4, targetCharactersPerSecond: 4,
                                  counting: .fullWidth)),
            // Korean guide: 16 characters per line; 12 characters a second.
            ("ko", CaptionProfile(name: "netflix-ko", maxCharactersPerLine: 16, maxCharactersPerSecond: 12, targetCharactersPerSecond: 11,
                                  counting: .fullWidth)),
            // Simplified and Traditional Chinese guides: 16 characters per line; 9 characters a second.
            ("zh", CaptionProfile(name: "netflix-zh", maxCharactersPerLine: 16, maxCharactersPerSecond: 9, targetCharactersPerSecond: 8,
                                  counting: .fullWidth)),
        ]
        return Dictionary(uniqueKeysWithValues: european + eastAsian)
    }()
}
