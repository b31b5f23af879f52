import CapforgeCore
import Foundation

/// Whisper invents fluent sentences over silence and steady noise, and whisper.cpp keeps them
/// when they decode confidently. A segment is dropped when Whisper itself rates it as likely
/// no speech AND its audio is steady: speech rises and falls by syllable, silence, hiss and
/// hum do not.
enum NoSpeechFilter {
    /// Whisper's own no-speech threshold (`no_speech_thold` default).
    static let noSpeechProbability: Float = 0.6
    /// Speech frames rise well above the pauses between words; steady noise stays within a few dB.
    static let minimumDynamicRangeDB = 10.0
    static let silenceDBFS = -60.0
    static let frameLength = MonoAudio.sampleRate / 50

    static func keeps(_ segment: DecodedSegment, samples: [Float]) -> Bool {
        guard segment.noSpeechProbability > noSpeechProbability else { return true }
        let rate = MonoAudio.sampleRate / 100
        let lo = max(0, min(samples.count, Int(segment.start) * rate))
        let hi = max(lo, min(samples.count, Int(segment.end) * rate))
        return !isSteady(samples[lo..<hi])
    }

    static func isSteady(_ samples: ArraySlice<Float>) -> Bool {
        let levels = stride(from: samples.startIndex, to: samples.endIndex, by: frameLength).map { start -> Double in
            let frame = samples[start..<min(samples.endIndex, start + frameLength)]
            let power = frame.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(frame.count)
            return 10 * log10(power + 1e-12)
        }.sorted()
        guard let loudest = levels.last else { return true }
        let floor = levels[levels.count / 10]
        let peak = levels[min(levels.count - 1, levels.count * 95 / 100)]
        return loudest < silenceDBFS || peak - floor < minimumDynamicRangeDB
    }
}
