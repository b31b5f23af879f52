/// Where running text ends a sentence or a clause, judged by its last visible character.
enum Punctuation {
    private static let sentenceEnds: Set<Character> = [".", "!", "?", "\u{2026}", "\u{3002}", "\u{FF01}", "\u{FF1F}"]
    private static let clauseEnds: Set<Character> = [",", ";", ":", "\u{2014}", "\u{2013}", "\u{3001}", "\u{FF0C}", "\u{FF1B}", "\u{FF1A}"]
    private static let closers: Set<Character> = ["\"", "'", ")", "]", "\u{201D}", "\u{2019}", "\u{300D}", "\u{300F}"]

    static func endsSentence(_ text: String) -> Bool {
        lastMark(of: text).map(sentenceEnds.contains) ?? false
    }

    static func endsClause(_ text: String) -> Bool {
        lastMark(of: text).map(clauseEnds.contains) ?? false
    }

    private static func lastMark(of text: String) -> Character? {
        text.reversed().first { !closers.contains($0) }
    }
}
