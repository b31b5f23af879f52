/// Where running text ends a sentence or a clause, judged by its last visible character.
enum Punctuation {
    private static let sentenceEnds: Set<Character> = [".", "!", "?", "\u{2026}", "\u{3002}", "\u{FF01}", "\u{FF1F}"]
    private static let clauseEnds: Set<Character> = [",", ";", ":", "\u{2014}", "\u{2013}", "\u{3001}", "\u{FF0C}", "\u{FF1B}", "\u{FF1A}"]
    private static let closers: Set<Character> = ["\"", "'", ")", "]", "\u{201D}", "\u{2019}", "\u{300D}", "\u{300F}"]

    /// What may not begin a line: closing punctuation, and in Japanese the small kana, the
    /// long-vowel mark and the iteration mark (the CJK line-breaking rules, kinsoku).
    private static let noLineStart: Set<Character> = Set(",.!?:;)]}\u{2019}\u{201D}\u{2026}、。，．！？：；」』）】〕〉》〙〗｝］・ー々ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ")
    /// What may not end a line: opening brackets and quotes.
    private static let noLineEnd: Set<Character> = Set("([{\u{2018}\u{201C}「『（【〔〈《〘〖｛［")

    static func mayNotStartLine(_ character: Character) -> Bool { noLineStart.contains(character) }
    static func mayNotEndLine(_ character: Character) -> Bool { noLineEnd.contains(character) }

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
