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

    static func keeps(_ segment: DecodedSegment, samples: [Float]) -> Bool {
        guard segment.noSpeechProbability > noSpeechProbability else { return true }
        let rate = MonoAudio.sampleRate / 100
        let lo = max(0, min(samples.count, Int(segment.start) * rate))
        let hi = max(lo, min(samples.count, Int(segment.end) * rate))
        return !LoudnessEnvelope(samples[lo..<hi]).isSteady(minimumRangeDB: minimumDynamicRangeDB)
    }
}
