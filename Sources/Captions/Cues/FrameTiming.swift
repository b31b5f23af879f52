/// Gap rules expressed in frames, converted to the milliseconds subtitle files use.
///
/// Lint tolerates the rounding of the file's times (1 ms, or 10 ms for ASS's centiseconds); the
/// builder picks whole milliseconds that pass.
public struct FrameTiming: Sendable, Equatable {
    /// Frame rate assumed when the video's is unknown.
    public static let fallbackRate = 25.0
    /// Frame rates gap rules are judged at. A slideshow at 1 fps would make a two-frame gap two
    /// seconds, a 1000 fps capture two milliseconds: neither is what a caption gap is for, so
    /// outside this the fallback applies (with a warning where the rate came from).
    public static let plausibleRates = 10.0...120.0

    /// A video's claimed frame rate when gap rules can use it; nil otherwise (the fallback applies).
    public static func plausible(_ claimed: Double?) -> Double? {
        claimed.flatMap { plausibleRates.contains($0) ? $0 : nil }
    }

    public let framesPerSecond: Double
    public let minGapFrames: Double
    public let chainGapFrames: Double
    /// The precision of the times judged, in milliseconds.
    public let resolution: Double

    public init(framesPerSecond: Double?, profile: CaptionProfile, resolution: Double = 1) throws {
        let rate = framesPerSecond ?? Self.fallbackRate
        guard rate.isFinite, Self.plausibleRates.contains(rate) else { throw CaptionError.invalidFrameRate(rate) }
        self.framesPerSecond = rate
        self.minGapFrames = profile.minGapFrames
        self.chainGapFrames = profile.chainGapFrames
        self.resolution = resolution
    }

    private var frameMs: Double { 1000 / framesPerSecond }
    private var minGapMs: Double { minGapFrames * frameMs }
    private var chainGapMs: Double { chainGapFrames * frameMs }

    public func isTooShort(gap: Int) -> Bool { Double(gap) < minGapMs - resolution }

    /// A gap short enough that it should have been closed up to the minimum.
    public func isUnchained(gap: Int) -> Bool {
        Double(gap) > minGapMs + resolution && Double(gap) <= chainGapMs
    }

    /// The gap the builder leaves between chained cues.
    public var chainedGap: Int { Int(minGapMs.rounded(.up)) }
    /// The smallest gap the builder may leave open without chaining.
    public var smallestOpenGap: Int { Int(chainGapMs.rounded(.down)) + 1 }
}
