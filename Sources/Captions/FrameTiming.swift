/// Gap rules expressed in frames, converted to the milliseconds subtitle files use.
///
/// Lint tolerates 1 ms of rounding; the builder picks whole milliseconds that pass.
public struct FrameTiming: Sendable, Equatable {
    /// Frame rate assumed when the video's is unknown.
    public static let fallbackRate = 25.0

    public let framesPerSecond: Double
    public let minGapFrames: Double
    public let chainGapFrames: Double

    public init(framesPerSecond: Double?, profile: CaptionProfile) throws {
        let rate = framesPerSecond ?? Self.fallbackRate
        guard rate.isFinite, rate >= 1, rate <= 1000 else { throw CaptionError.invalidFrameRate(rate) }
        self.framesPerSecond = rate
        self.minGapFrames = profile.minGapFrames
        self.chainGapFrames = profile.chainGapFrames
    }

    private var frameMs: Double { 1000 / framesPerSecond }
    private var minGapMs: Double { minGapFrames * frameMs }
    private var chainGapMs: Double { chainGapFrames * frameMs }

    public func isTooShort(gap: Int) -> Bool { Double(gap) < minGapMs - 1 }

    /// A gap short enough that it should have been closed up to the minimum.
    public func isUnchained(gap: Int) -> Bool {
        Double(gap) > minGapMs + 1 && Double(gap) <= chainGapMs
    }

    /// The gap the builder leaves between chained cues.
    public var chainedGap: Int { Int(minGapMs.rounded(.up)) }
    /// The smallest gap the builder may leave open without chaining.
    public var smallestOpenGap: Int { Int(chainGapMs.rounded(.down)) + 1 }
}
