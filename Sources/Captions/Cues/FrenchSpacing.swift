/// French typography puts a no-break space before `?`, `!`, `;` and `:` and inside « »
/// (Netflix's French guide asks for it too); recognisers write English spacing. The space is
/// a no-break one, so a line never breaks before the mark.
enum FrenchSpacing {
    /// The narrow no-break space French typesetting uses before `?`, `!` and `;`.
    static let narrow: Character = "\u{202F}"
    /// The no-break space before `:` and inside guillemets.
    static let full: Character = "\u{00A0}"

    static func spaced(_ word: String) -> String {
        var characters = Array(word)
        var index = characters.count
        // Trailing marks, past closing quotes: "vrai ?!" and "« vrai ? »".
        while index > 0, "?!;:»".contains(characters[index - 1]) {
            index -= 1
            let mark = characters[index]
            guard index > 0, !"?!;:".contains(characters[index - 1]), !characters[index - 1].isWhitespace else { continue }
            characters.insert(mark == ":" || mark == "»" ? full : narrow, at: index)
        }
        if characters.first == "«", characters.count > 1, !characters[1].isWhitespace {
            characters.insert(full, at: 1)
        }
        return String(characters)
    }
}
