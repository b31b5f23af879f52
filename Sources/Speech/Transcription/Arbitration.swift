import CapforgeCore

/// How `--tier arbitrate` picks between the tiers' transcripts of one chunk.
public struct ArbitrationRules: Sendable, Equatable, Codable, Hashable {
    /// A transcript whose mean calibrated score is below this is not accepted.
    public var acceptance: Double = 0.5
    /// Scores closer than this are a tie, and ties go to the modern tier.
    public var tieMargin: Double = 0.05
    /// Transcripts shorter than this many letters never win (a lone "a" is not a result).
    public var minimumCharacters: Int = 4

    public init() {}

    public enum Verdict: Equatable {
        case modern, basic, notCaught
    }

    public func choose(modern: [Word]?, basic: [Word]?) -> Verdict {
        func score(_ words: [Word]?) -> Double? {
            guard let words, !words.isEmpty else { return nil }
            let letters = words.reduce(0) { $0 + $1.text.filter(\.isLetter).count }
            guard letters >= minimumCharacters else { return nil }
            let mean = words.reduce(0) { $0 + $1.score } / Double(words.count)
            return mean >= acceptance ? mean : nil
        }
        switch (score(modern), score(basic)) {
        case (nil, nil): return .notCaught
        case (_?, nil): return .modern
        case (nil, _?): return .basic
        case (let m?, let b?): return b > m + tieMargin ? .basic : .modern
        }
    }
}
