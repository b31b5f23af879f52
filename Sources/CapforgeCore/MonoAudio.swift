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
        let rate = Double(Self.sampleRate)
        let lo = max(0, min(samples.count, Int(((from - startTime) * rate).rounded())))
        let hi = max(lo, min(samples.count, Int(((to - startTime) * rate).rounded())))
        return MonoAudio(samples: Array(samples[lo..<hi]), startTime: startTime + Double(lo) / rate)
    }
}
