import CapforgeCore

/// Whisper can write a few words for a long stretch of speech it did not make out: base on the
/// Korean fixture's clear sentence wrote one wrong word over its 6.8 s. Such words are not
/// evidence of what was said, whatever their confidence (0.89 there). Frame-by-frame decoders
/// (PocketSphinx, Vosk) write something for every stretch they hear, so only the modern tier is
/// checked.
enum SpeechCoverage {
    /// Below this much detected speech a window is too short to judge.
    static let minimumSpeech = 3.0
    /// The words must be able to account for at least this share of the detected speech, taking
    /// each at the longest anyone takes to say it (`HallucinationGuard.longestSaying`, several
    /// times a real word's length): a window fails only when most of what was said is missing.
    static let minimumShare = 0.5

    /// Seconds of `speech` between `from` and `to`.
    static func speechSeconds(_ speech: [SpeechRegion], from: Double, to: Double) -> Double {
        speech.reduce(0) { $0 + max(0, min($1.end, to) - max($1.start, from)) }
    }

    /// nil when `words` can account for `speechSeconds` of detected speech; else why not, for
    /// the user. No words at all is no speech heard, which the guard and the report handle.
    static func shortfall(_ words: [Word], speechSeconds: Double, model: String) -> String? {
        guard !words.isEmpty, speechSeconds >= minimumSpeech else { return nil }
        let sayable = words.reduce(0) { $0 + HallucinationGuard.longestSaying($1) }
        guard sayable < minimumShare * speechSeconds else { return nil }
        let text = words.map(\.text).joined(separator: " ")
        return String(format: "%@ wrote %d word(s) (“%@”) for %.1f s of detected speech, too few to be what was said", model, words.count,
                      text.count > 60 ? String(text.prefix(60)) + "…" : text, speechSeconds)
    }
}
