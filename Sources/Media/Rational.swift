import CapforgeCore
import CFFmpeg

/// A time base, frame rate or pixel aspect, exactly as FFmpeg keeps it.
package struct Rational: Sendable, Equatable {
    package var numerator: Int32
    package var denominator: Int32

    package init(_ numerator: Int32, _ denominator: Int32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    init(_ value: AVRational) {
        self.init(value.num, value.den)
    }

    var av: AVRational { AVRational(num: numerator, den: denominator) }

    /// Both parts positive: FFmpeg says 0/1 or 0/0 for "not known".
    var isKnown: Bool { numerator > 0 && denominator > 0 }

    package var value: Double { av_q2d(av) }

    package var inverse: Rational { Rational(denominator, numerator) }
}

extension MediaTime {
    /// `ticks` of `timeBase` on a stream's clock, less the file's origin (AV_TIME_BASE units);
    /// nil where a damaged timestamp does not fit on the way.
    init?(ticks: Int64, timeBase: AVRational, origin: Int64) {
        // av_rescale_q says INT64_MIN where the result does not fit.
        let scaled = av_rescale_q(ticks, timeBase, shim_time_base_q())
        let (since, overflow) = scaled.subtractingReportingOverflow(origin)
        guard scaled != .min, !overflow else { return nil }
        self.init(microseconds: since)
    }

    /// This time in ticks of `timeBase`, rounded to the nearest.
    func ticks(in timeBase: AVRational) -> Int64 {
        av_rescale_q(microseconds, shim_time_base_q(), timeBase)
    }
}
