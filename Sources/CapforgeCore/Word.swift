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

    public init(
        text: String, start: Double, end: Double, confidence: Double,
        calibratedConfidence: Double? = nil, tier: Tier, engine: String
    ) {
        self.text = text
        self.start = start
        self.end = end
        self.confidence = confidence
        self.calibratedConfidence = calibratedConfidence
        self.tier = tier
        self.engine = engine
    }

    public var duration: Double { end - start }

    /// The confidence to judge this word by: calibrated when available.
    public var score: Double { calibratedConfidence ?? confidence }
}
