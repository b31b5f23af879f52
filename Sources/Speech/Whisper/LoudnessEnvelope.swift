import CapforgeCore
import Foundation

/// The level of decoded audio in 20 ms frames, on whisper's centisecond timeline: the audio
/// evidence that the no-speech filter and the repetition guard check Whisper's text against.
struct LoudnessEnvelope {
    static let frameLength = MonoAudio.sampleRate / 50
    static let silenceDBFS = -60.0
    /// Speech is louder than this much below its loud frames (consonants, soft syllables).
    static let speechRangeDB = 25.0
    /// Pauses shorter than this do not split a burst (stops inside a word).
    static let bridgedFrames = 3

    /// dBFS of each frame.
    let levels: [Double]

    init(levels: [Double]) {
        self.levels = levels
    }

    init(_ samples: ArraySlice<Float>) {
        levels = stride(from: samples.startIndex, to: samples.endIndex, by: Self.frameLength).map { start in
            let frame = samples[start..<min(samples.endIndex, start + Self.frameLength)]
            let power = frame.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(frame.count)
            return 10 * log10(power + 1e-12)
        }
    }

    /// The level `fraction` of the way up the sorted frames (0.1: the floor, 0.95: the peaks).
    func percentile(_ fraction: Double) -> Double? {
        let sorted = levels.sorted()
        return sorted.isEmpty ? nil : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    /// Silence, hiss and hum: nothing loud, or no rise and fall between syllables and pauses.
    func isSteady(minimumRangeDB: Double) -> Bool {
        guard let loudest = levels.max(), let floor = percentile(0.1), let peak = percentile(0.95) else { return true }
        return loudest < Self.silenceDBFS || peak - floor < minimumRangeDB
    }

    /// Stretches of sound clearly above the pauses around them, in centiseconds: each word or
    /// syllable group a speaker utters is at least one burst.
    func bursts() -> [Range<Int64>] {
        guard let floor = percentile(0.1), let peak = percentile(0.95) else { return [] }
        let threshold = max(peak - Self.speechRangeDB, floor + 6, Self.silenceDBFS - 10)
        var bursts: [Range<Int>] = []
        for (frame, level) in levels.enumerated() where level >= threshold {
            if let last = bursts.last, frame - last.upperBound <= Self.bridgedFrames {
                bursts[bursts.count - 1] = last.lowerBound..<(frame + 1)
            } else {
                bursts.append(frame..<(frame + 1))
            }
        }
        // Frames are 2 cs; a single loud frame is a click, not an utterance.
        return bursts.filter { $0.count >= 2 }.map { Int64($0.lowerBound * 2)..<Int64($0.upperBound * 2) }
    }
}
