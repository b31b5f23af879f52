/// Why `--tier arbitrate` settled a doubted stretch the way it did.
public enum ArbitrationRule: String, Sendable, Codable, Equatable {
    /// The rival was more confident by more than the tie margin: its words are used.
    case rivalMoreConfident = "rival-more-confident"
    /// Within the tie margin: the modern words stay.
    case tie
    /// The modern words were the more confident.
    case modernMoreConfident = "modern-more-confident"
    /// The rival heard fewer than `minimumCharacters` letters there (or nothing).
    case rivalTooShort = "rival-too-short"
    /// A modern word is a glossary term: Whisper was prompted with it; the rival knows none.
    case glossaryTerm = "glossary-term"
    /// The rival engine failed on the stretch (the reason is in the verdict).
    case rivalFailed = "rival-failed"
}

/// One doubted stretch and how it was settled: both engines' words, with raw and calibrated
/// confidences, so a reader can check the decision.
public struct ArbitrationVerdict: Sendable, Equatable, Codable {
    public var start: Double
    public var end: Double
    public var rule: ArbitrationRule
    /// The tier whose words the captions use.
    public var winner: Tier
    public var modern: [Word]
    public var rival: [Word]
    public var error: String?

    public init(start: Double, end: Double, rule: ArbitrationRule, modern: [Word], rival: [Word], error: String? = nil) {
        self.start = start
        self.end = end
        self.rule = rule
        self.winner = rule == .rivalMoreConfident ? .basic : .modern
        self.modern = modern
        self.rival = rival
        self.error = error
    }
}
