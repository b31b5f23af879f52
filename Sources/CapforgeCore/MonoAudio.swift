/// Mono 16 kHz Float32 audio placed on the file's timeline.
///
/// `samples[i]` plays at `startTime + i / sampleRate` seconds from the file's `start_time`.
public struct MonoAudio: Sendable, Equatable {
    public static let sampleRate = 16_000

    public var samples: [Float]
    public var startTime: Double

    public init(samples: [Float], startTime: Double = 0) {
        self.samples = samples
        self.startTime = startTime
    }

    public var duration: Double { Double(samples.count) / Double(Self.sampleRate) }
    public var endTime: Double { startTime + duration }

    /// The sub-range covering `[from, to)` seconds on the file's timeline, clamped to what exists.
    public func slice(from: Double, to: Double) -> MonoAudio {
        let range = Self.sampleRange(from: from, to: to, startTime: startTime, count: samples.count)
        return MonoAudio(samples: Array(samples[range]), startTime: startTime + Double(range.lowerBound) / Double(Self.sampleRate))
    }

    /// The indices covering `[from, to)` seconds of `count` samples that begin at `startTime`.
    static func sampleRange(from: Double, to: Double, startTime: Double, count: Int) -> Range<Int> {
        let rate = Double(sampleRate)
        let lo = max(0, min(count, Int(((from - startTime) * rate).rounded())))
        let hi = max(lo, min(count, Int(((to - startTime) * rate).rounded())))
        return lo..<hi
    }
}
