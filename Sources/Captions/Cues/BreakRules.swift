import CapforgeCore
import Foundation

/// Where a line or cue may end in one language: readers parse a line more easily when it does
/// not end on a word that leans on the next one (the Netflix style guides: break after
/// punctuation and before conjunctions and prepositions; never between an article and its
/// noun). Word lists for English and the main European languages; other languages balance
/// line lengths only.
struct BreakRules: Sendable, Equatable {
    /// Words that bind to the word after them (articles, determiners, and for English pronouns
    /// before their verb, auxiliaries and negation, common adjectives before their noun).
    let bindsForward: Set<String>
    /// Articles, determiners and possessives: they wait for their noun.
    let determiners: Set<String>
    /// Words a line may start with: conjunctions and prepositions begin a new phrase.
    let startsPhrase: Set<String>
    /// Whether "First Last" capitalisation marks a name not to split (Latin-script languages
    /// that capitalise only names and sentence starts; German capitalises every noun).
    let capitalisedNames: Bool
    /// Titles written as abbreviations ("Mr.", "Dr."), normalised: their period ends no
    /// sentence, and they wait for the name after them.
    var titles: Set<String> = []

    /// Whether a cue or line ending on `text` leaves the reader waiting: a word a cue should not
    /// end on, pause or not (determiners wait for their noun, prepositions and conjunctions for
    /// the phrase or clause they open), with no punctuation after it.
    func leavesPhraseOpen(_ text: String) -> Bool {
        let word = Self.normalised(text)
        if titles.contains(word) && !Punctuation.endsClause(text) { return true }
        // Set by set: building their union per line cost lint a fifth of its time.
        guard !Punctuation.endsSentence(text), !Punctuation.endsClause(text) else { return false }
        return determiners.contains(word) || startsPhrase.contains(word)
    }

    static func normalised(_ text: String) -> String {
        let text = text.lowercased().replacingOccurrences(of: "\u{2019}", with: "'")
        return String(text.unicodeScalars.filter { $0 == "'" || !CharacterSet.punctuationSet.contains($0) })
    }

    static func isCapitalised(_ text: String) -> Bool {
        text.first?.isUppercase ?? false
    }

    /// The rules for `language`; nil where Capforge has no word lists.
    static func forLanguage(_ language: Language) -> BreakRules? {
        table[language.code]
    }

    private static func european(determiners: Set<String>, pronouns: Set<String>, prepositions: Set<String>, conjunctions: Set<String>,
                                 capitalisedNames: Bool = true) -> BreakRules {
        BreakRules(bindsForward: determiners.union(pronouns), determiners: determiners, startsPhrase: prepositions.union(conjunctions),
                   capitalisedNames: capitalisedNames)
    }

    static let english: BreakRules = {
        let determiners: Set<String> = [
            "a", "an", "the", "this", "that", "these", "those", "my", "your", "his", "her", "its", "our", "their",
            "some", "any", "no", "every", "each",
        ]
        return BreakRules(
            bindsForward: determiners.union([
                "i", "you", "he", "she", "it", "we", "they",
                "am", "is", "are", "was", "were", "be", "been", "being", "do", "does", "did", "have", "has", "had",
                "will", "would", "shall", "should", "can", "could", "may", "might", "must", "not", "never",
                "don't", "doesn't", "didn't", "can't", "couldn't", "won't", "wouldn't", "isn't", "aren't",
                "wasn't", "weren't", "haven't", "hasn't", "hadn't", "shouldn't", "i'm", "you're", "we're",
                "they're", "he's", "she's", "it's", "i've", "we've", "you've", "they've", "i'll", "you'll",
                "we'll", "they'll", "i'd", "to", "very", "more", "most",
                "new", "old", "good", "bad", "big", "small", "great", "little", "long", "high", "low",
                "young", "large", "different", "important", "other", "same", "last", "next", "first", "own", "real",
            ]),
            determiners: determiners,
            startsPhrase: [
                "and", "but", "or", "nor", "so", "yet", "because", "although", "though", "while", "whereas",
                "if", "unless", "when", "where", "which", "who", "whom", "whose", "that", "than", "as",
                "of", "in", "on", "at", "for", "with", "without", "from", "to", "into", "onto", "about",
                "over", "under", "after", "before", "between", "through", "during", "against", "across",
                "around", "behind", "beyond", "by", "like", "since", "until", "upon", "within",
            ],
            capitalisedNames: true,
            titles: ["mr", "mrs", "ms", "mx", "dr", "prof", "rev", "st"])
    }()

    private static let table: [String: BreakRules] = [
        "en": english,
        "fr": european(
            determiners: ["le", "la", "les", "l'", "un", "une", "des", "du", "au", "aux", "ce", "cet", "cette", "ces", "mon", "ma", "mes",
                          "ton", "ta", "tes", "son", "sa", "ses", "notre", "nos", "votre", "vos", "leur", "leurs", "chaque", "quelques"],
            pronouns: ["je", "j'", "tu", "il", "elle", "on", "nous", "vous", "ils", "elles", "ne", "n'", "se", "s'", "me", "m'", "te", "t'", "y"],
            prepositions: ["à", "de", "d'", "en", "dans", "sur", "sous", "par", "pour", "avec", "sans", "chez", "vers", "entre", "contre",
                           "depuis", "pendant", "avant", "après", "selon", "malgré"],
            conjunctions: ["et", "ou", "mais", "donc", "or", "ni", "car", "que", "qu'", "si", "quand", "comme", "lorsque", "puisque", "parce"]),
        "de": european(
            determiners: ["der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "eines", "kein", "keine",
                          "mein", "meine", "dein", "deine", "sein", "seine", "ihr", "ihre", "unser", "unsere", "euer", "eure", "jede", "jeder", "jedes"],
            pronouns: ["ich", "du", "er", "sie", "es", "wir", "ihr", "nicht"],
            prepositions: ["an", "am", "auf", "aus", "bei", "beim", "bis", "durch", "für", "gegen", "hinter", "in", "im", "ins", "mit", "nach",
                           "ohne", "seit", "über", "um", "unter", "von", "vom", "vor", "zu", "zum", "zur", "zwischen", "wegen", "während"],
            conjunctions: ["und", "oder", "aber", "denn", "sondern", "dass", "weil", "wenn", "ob", "als", "obwohl", "damit"],
            capitalisedNames: false),
        "es": european(
            determiners: ["el", "la", "los", "las", "un", "una", "unos", "unas", "lo", "al", "del", "mi", "tu", "su", "mis", "tus", "sus",
                          "nuestro", "nuestra", "este", "esta", "estos", "estas", "ese", "esa", "esos", "esas", "cada"],
            pronouns: ["yo", "me", "te", "se", "nos", "os", "le", "les", "no"],
            prepositions: ["a", "ante", "bajo", "con", "contra", "de", "desde", "en", "entre", "hacia", "hasta", "para", "por", "según",
                           "sin", "sobre", "tras", "durante"],
            conjunctions: ["y", "e", "o", "u", "ni", "pero", "sino", "que", "si", "porque", "cuando", "como", "aunque"]),
        "it": european(
            determiners: ["il", "lo", "la", "i", "gli", "le", "l'", "un", "uno", "una", "un'", "del", "dello", "della", "dei", "degli", "delle",
                          "al", "allo", "alla", "ai", "agli", "alle", "nel", "nello", "nella", "nei", "negli", "nelle", "sul", "sulla",
                          "mio", "mia", "tuo", "tua", "suo", "sua", "questo", "questa", "quel", "quella", "ogni"],
            pronouns: ["io", "tu", "lui", "lei", "noi", "voi", "loro", "mi", "ti", "si", "ci", "vi", "non"],
            prepositions: ["di", "d'", "a", "da", "in", "con", "su", "per", "tra", "fra", "senza", "verso", "dopo", "prima"],
            conjunctions: ["e", "ed", "o", "ma", "che", "se", "perché", "quando", "come", "mentre", "anche"]),
        "pt": european(
            determiners: ["o", "a", "os", "as", "um", "uma", "uns", "umas", "do", "da", "dos", "das", "no", "na", "nos", "nas", "ao", "aos",
                          "à", "às", "pelo", "pela", "pelos", "pelas", "meu", "minha", "seu", "sua", "este", "esta", "esse", "essa", "cada"],
            pronouns: ["eu", "tu", "ele", "ela", "nós", "vós", "eles", "elas", "me", "te", "se", "lhe", "não"],
            prepositions: ["de", "em", "para", "por", "com", "sem", "sobre", "entre", "até", "desde", "contra", "durante"],
            conjunctions: ["e", "ou", "mas", "que", "se", "porque", "quando", "como", "embora"]),
        "nl": european(
            determiners: ["de", "het", "een", "deze", "dit", "die", "dat", "mijn", "jouw", "je", "zijn", "haar", "ons", "onze", "hun", "elk", "elke"],
            pronouns: ["ik", "jij", "hij", "zij", "ze", "wij", "we", "jullie", "niet"],
            prepositions: ["aan", "bij", "door", "in", "met", "na", "naar", "om", "op", "over", "tot", "uit", "van", "voor", "zonder", "tegen", "tussen"],
            conjunctions: ["en", "of", "maar", "want", "omdat", "als", "wanneer", "dat", "toen"]),
    ]
}

extension CharacterSet {
    static let punctuationSet: CharacterSet = .punctuationCharacters.union(.symbols)
}
