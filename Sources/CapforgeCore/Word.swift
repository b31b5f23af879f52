/// Which family of recogniser produced a piece of text.
///
/// Recorded per word so the quality flag reflects what actually ran, not what was planned.
public enum Tier: String, Codable, Sendable, CaseIterable, Comparable {
    case modern
    case basic

    public static func < (lhs: Tier, rhs: Tier) -> Bool {
        // Modern sorts first: listings and tie-breaks prefer it.
        lhs == .modern && rhs == .basic
    }
}

/// One recognised word on the file's timeline.
///
/// Times are seconds from the file's `start_time` (the project's single time origin), so
/// `sampleIndex / 16000` of extracted audio and video frame times agree.
public struct Word: Codable, Sendable, Equatable, Hashable {
    public var text: String
    public var start: Double
    public var end: Double
    /// The engine's own confidence in 0...1; not comparable across engines.
    public var confidence: Double
    /// Confidence mapped through the engine's calibration to a shared 0...1 scale, when known.
    public var calibratedConfidence: Double?
    public var tier: Tier
    public var engine: String
    /// What the engine said about the word besides `confidence`, when it says more.
    public var evidence: WordEvidence?

    public init(
        text: String, start: Double, end: Double, confidence: Double,
        calibratedConfidence: Double? = nil, tier: Tier, engine: String, evidence: WordEvidence? = nil
    ) {
        self.text = text
        self.start = start
        self.end = end
        self.confidence = confidence
        self.calibratedConfidence = calibratedConfidence
        self.tier = tier
        self.engine = engine
        self.evidence = evidence
    }

    public var duration: Double { end - start }
    public var middle: Double { (start + end) / 2 }

    /// The confidence to judge this word by: calibrated when available.
    public var score: Double { calibratedConfidence ?? confidence }
}

/// A decoder's token-level view of one word. The mean token probability alone hides a word
/// whose one piece the decoder doubted, and a word inside a segment it doubted throughout.
public struct WordEvidence: Codable, Sendable, Equatable, Hashable {
    /// The least probable of the word's tokens.
    public var minimumTokenProbability: Double
    public var tokenCount: Int
    /// Mean log-probability of the text tokens of the word's segment (Whisper's avg_logprob).
    public var segmentLogProbability: Double
    /// With `--cross-check`: true when the second model did not hear this word here, false when
    /// it did; nil when no second model heard the audio.
    public var disputed: Bool?
    /// true when the word was drawn at a temperature above 0 because the greedy decoding of its
    /// window failed the decoder's own checks; nil when greedy, or when the engine does not say.
    public var sampled: Bool?

    public init(minimumTokenProbability: Double, tokenCount: Int, segmentLogProbability: Double, disputed: Bool? = nil, sampled: Bool? = nil) {
        self.minimumTokenProbability = minimumTokenProbability
        self.tokenCount = tokenCount
        self.segmentLogProbability = segmentLogProbability
        self.disputed = disputed
        self.sampled = sampled
    }
}
