/// An instant or a length on the media's timeline, to the microsecond (FFmpeg's AV_TIME_BASE,
/// so a container's clock converts without loss). Instants count from the file's `start_time`,
/// the origin of every time Capforge writes.
public struct MediaTime: Sendable, Hashable, Comparable {
    public var microseconds: Int64

    public init(microseconds: Int64) {
        self.microseconds = microseconds
    }

    /// Clamped to the clock's range (NaN is zero): seconds come from headers too.
    public init(seconds: Double) {
        let value = (seconds * 1_000_000).rounded()
        microseconds = value.isNaN ? 0 : value >= 0x1p63 ? .max : value < -0x1p63 ? .min : Int64(value)
    }

    public static func milliseconds(_ milliseconds: Int) -> MediaTime {
        MediaTime(microseconds: Int64(milliseconds) * 1000)
    }

    public static let zero = MediaTime(microseconds: 0)

    /// The longest timeline Capforge accepts (a week): a time read back from a file Capforge
    /// wrote (a manifest, a journal, a cache) lies within it either side, or the file was not
    /// Capforge's and is not trusted.
    public static let longestTimeline = 7 * 24 * 3600.0

    public static func isPlausible(seconds: Double) -> Bool {
        seconds.isFinite && abs(seconds) <= longestTimeline
    }

    public var seconds: Double { Double(microseconds) / 1_000_000 }

    /// Whole milliseconds at or before this time: a frame exactly at a cue's end is not inside it.
    public var flooredMilliseconds: Int {
        Int(microseconds >= 0 ? microseconds / 1000 : (microseconds - 999) / 1000)
    }

    /// The nearest whole millisecond, halves away from zero (as FFmpeg rescales).
    public var roundedMilliseconds: Int {
        let (whole, rest) = microseconds.quotientAndRemainder(dividingBy: 1000)
        return Int(rest >= 500 ? whole + 1 : rest <= -500 ? whole - 1 : whole)
    }

    public static func < (a: MediaTime, b: MediaTime) -> Bool { a.microseconds < b.microseconds }
    // Saturating: a damaged timestamp near the clock's limit must not trap.
    public static func + (a: MediaTime, b: MediaTime) -> MediaTime {
        let (sum, overflow) = a.microseconds.addingReportingOverflow(b.microseconds)
        return MediaTime(microseconds: overflow ? (b.microseconds > 0 ? .max : .min) : sum)
    }

    public static func - (a: MediaTime, b: MediaTime) -> MediaTime {
        let (difference, overflow) = a.microseconds.subtractingReportingOverflow(b.microseconds)
        return MediaTime(microseconds: overflow ? (b.microseconds < 0 ? .max : .min) : difference)
    }
}
