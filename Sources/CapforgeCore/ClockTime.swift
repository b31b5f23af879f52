import Foundation

/// Moments and lengths on the media's timeline as people read them.
public enum ClockTime {
    /// "1:02" or "1:02:03", to the second.
    public static func seconds(_ seconds: Double) -> String {
        text(Int(seconds.rounded()))
    }

    /// "1:02.3": a moment to a tenth of a second, for cue times.
    public static func tenths(_ seconds: Double) -> String {
        let tenths = Int((max(0, seconds) * 10).rounded())
        return text(tenths / 10) + ".\(tenths % 10)"
    }

    private static func text(_ s: Int) -> String {
        s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}

/// A stretch of the media's timeline, in seconds.
public struct TimeSpan: Codable, Sendable, Equatable, Hashable {
    public var start: Double
    public var end: Double

    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }
}
