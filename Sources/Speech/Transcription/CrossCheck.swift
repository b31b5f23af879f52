import CapforgeCore

/// `--cross-check MODEL`: a second Whisper model hears each chunk again, and the first model's
/// words that it did not hear are disputed. One decoding is often sure of a wrong word (on
/// held-out speech 43 % of tiny.en's wrong words had a raw confidence of 0.9 or more), but two
/// models seldom make the same mistake: base disputed 54 % of tiny.en's wrong words and 3 % of
/// its right ones there (`Scripts/calibrate` measures each pair).
public enum CrossCheck {
    /// Words of the two models are the same word when their spelling keys are equal and their
    /// times overlap within this many seconds (two models time one word up to about half a
    /// second apart; a repeated word a phrase later is another word).
    public static let timeTolerance = 1.0

    /// `words` (both lists in time order) with `evidence.disputed` set: false for the words in
    /// the longest run of equal words, in order, that the two lists share, true for the rest.
    /// Words without evidence (not from Whisper) are left as they are.
    public static func marked(_ words: [Word], against heard: [Word], language: Language) -> [Word] {
        let shared = sharedIndices(words, heard, language: language)
        return words.enumerated().map { index, word in
            guard var evidence = word.evidence else { return word }
            var marked = word
            evidence.disputed = !shared.contains(index)
            marked.evidence = evidence
            return marked
        }
    }

    /// The spelling key, with an English number below 100 spelt out: one model writes "Press 1."
    /// where the other writes "press one".
    static func comparisonKey(_ text: String, language: Language) -> String {
        let key = text.spellingKey
        guard language == .english, key.count <= 2, let value = Int(key), key.allSatisfy(\.isASCII), !(key.count == 2 && key.first == "0") else { return key }
        let ones = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
        let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
        return value < 20 ? ones[value] : tens[value / 10] + (value % 10 == 0 ? "" : ones[value % 10])
    }

    /// Indices into `words` of the words `heard` shares with it, in order (same comparison key,
    /// times within `timeTolerance`).
    static func sharedIndices(_ words: [Word], _ heard: [Word], language: Language) -> Set<Int> {
        Set(WordAlignment.sharedPairs(words, heard, key: { comparisonKey($0, language: language) }, timeTolerance: timeTolerance).map(\.word))
    }
}
