import Foundation

/// English word lists for where a line may break inside a cue: readers parse a line more
/// easily when it does not end on a word that leans on the next one.
enum EnglishBreakRules {
    /// Words that bind to the word after them (articles, determiners, pronouns before their
    /// verb, auxiliaries and negation before their verb, common adjectives before their noun).
    static let bindsForward: Set<String> = determiners.union([
        "i", "you", "he", "she", "it", "we", "they",
        "am", "is", "are", "was", "were", "be", "been", "being", "do", "does", "did", "have", "has", "had",
        "will", "would", "shall", "should", "can", "could", "may", "might", "must", "not", "never",
        "don't", "doesn't", "didn't", "can't", "couldn't", "won't", "wouldn't", "isn't", "aren't",
        "wasn't", "weren't", "haven't", "hasn't", "hadn't", "shouldn't", "i'm", "you're", "we're",
        "they're", "he's", "she's", "it's", "i've", "we've", "you've", "they've", "i'll", "you'll",
        "we'll", "they'll", "i'd", "to", "very", "more", "most",
        "new", "old", "good", "bad", "big", "small", "great", "little", "long", "high", "low",
        "young", "large", "different", "important", "other", "same", "last", "next", "first", "own", "real",
    ])

    /// Articles, determiners and possessives: they wait for their noun.
    static let determiners: Set<String> = [
        "a", "an", "the", "this", "that", "these", "those", "my", "your", "his", "her", "its", "our", "their",
        "some", "any", "no", "every", "each",
    ]

    /// Words a line may start with: conjunctions and prepositions begin a new phrase.
    static let startsPhrase: Set<String> = [
        "and", "but", "or", "nor", "so", "yet", "because", "although", "though", "while", "whereas",
        "if", "unless", "when", "where", "which", "who", "whom", "whose", "that", "than", "as",
        "of", "in", "on", "at", "for", "with", "without", "from", "to", "into", "onto", "about",
        "over", "under", "after", "before", "between", "through", "during", "against", "across",
        "around", "behind", "beyond", "by", "like", "since", "until", "upon", "within",
    ]

    /// Words a cue should not end on, pause or not: determiners wait for their noun,
    /// prepositions and conjunctions for the phrase or clause they open.
    static let phraseOpeners = determiners.union(startsPhrase)

    /// Whether a cue or line ending on `text` leaves the reader waiting: a phrase opener with no
    /// punctuation after it.
    static func leavesPhraseOpen(_ text: String) -> Bool {
        !Punctuation.endsSentence(text) && !Punctuation.endsClause(text) && phraseOpeners.contains(normalised(text))
    }

    static func normalised(_ text: String) -> String {
        let text = text.lowercased().replacingOccurrences(of: "\u{2019}", with: "'")
        return String(text.unicodeScalars.filter { $0 == "'" || !CharacterSet.punctuationSet.contains($0) })
    }

    static func isCapitalised(_ text: String) -> Bool {
        text.first?.isUppercase ?? false
    }
}

extension CharacterSet {
    static let punctuationSet: CharacterSet = .punctuationCharacters.union(.symbols)
}
