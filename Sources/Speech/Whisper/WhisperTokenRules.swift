import Foundation

/// Which tokens may come next in a Whisper window, and how likely each is: the rules libwhisper
/// 1.8.5 applies before it picks a token (`whisper_process_logits`, after OpenAI's decoding.py),
/// with Capforge's decoding settings (timestamps on, blank and non-speech tokens suppressed).
/// Capforge's own beam search needs them because it picks tokens outside libwhisper's sampler;
/// a rule that differed would show as libwhisper refusing a planned token (`BeamForcing`).
struct WhisperTokenRules: Sendable {
    let vocabularySize: Int
    let endOfText: Int32
    /// The first timestamp token, <|0.00|>; every id from here on is a timestamp, 0.02 s apart.
    let firstTimestamp: Int32
    /// Task, language, start and other special tokens that may never be emitted.
    let neverEmitted: [Int32]
    /// Suppressed at a window's start only: end of text and the lone space.
    let blankAtStart: [Int32]
    /// Punctuation and music symbols Whisper writes for non-speech (suppress_nst).
    let nonSpeech: [Int32]
    /// The highest timestamp index a window may open with (max_initial_ts 1.0 s).
    let maxInitialTimestamp: Int

    /// Seconds between timestamp tokens (30 s over the encoder's 1,500 positions).
    static let timestampStep: Float = 0.02

    /// The strings libwhisper's `non_speech_tokens` lists; each is suppressed bare and after a
    /// space, and a hyphen or apostrophe is suppressed after a space only.
    static let nonSpeechStrings = [
        "\"", "#", "(", ")", "*", "+", "/", ":", ";", "<", "=", ">", "@", "[", "\\", "]", "^",
        "_", "`", "{", "|", "}", "~", "「", "」", "『", "』", "<<", ">>", "<<<", ">>>", "--",
        "---", "-(", "-[", "('", "(\"", "((", "))", "(((", ")))", "[[", "]]", "{{", "}}", "♪♪",
        "♪♪♪", "♩", "♪", "♫", "♬", "♭", "♮", "♯",
    ]

    /// `idOf` maps a token's exact text to its id (the last id when texts repeat, as libwhisper's map).
    static func nonSpeechTokens(idOf: [String: Int32]) -> [Int32] {
        (nonSpeechStrings.flatMap { [$0, " " + $0] } + [" -", " '"]).compactMap { idOf[$0] }
    }

    /// Log-probabilities of every token after `prefix` (the window's tokens so far), -infinity
    /// where a rule forbids it. `logits` are the model's raw scores for that position.
    func logProbabilities(_ logits: [Float], after prefix: [Int32]) -> [Float] {
        precondition(logits.count == vocabularySize)
        var scores = logits
        let beg = Int(firstTimestamp), eot = Int(endOfText)
        if prefix.isEmpty {
            for id in blankAtStart { scores[Int(id)] = -.infinity }
        }
        for id in neverEmitted { scores[Int(id)] = -.infinity }
        for id in nonSpeech { scores[Int(id)] = -.infinity }
        // Timestamps come in pairs (end, start) except right before the end of text.
        if let last = prefix.last, last >= firstTimestamp {
            let penultimateWasTimestamp = prefix.count < 2 || prefix[prefix.count - 2] >= firstTimestamp
            let forbidden = penultimateWasTimestamp ? beg..<vocabularySize : 0..<eot
            for id in forbidden { scores[id] = -.infinity }
        }
        if prefix.isEmpty {
            for id in min(vocabularySize, beg + maxInitialTimestamp + 1)..<vocabularySize { scores[id] = -.infinity }
        }
        // Time never goes back within a window.
        if let lastTime = prefix.last(where: { $0 > firstTimestamp }) {
            for id in beg..<Int(lastTime) { scores[id] = -.infinity }
        }
        var logProbabilities = Self.logSoftmax(scores)
        // When all timestamps together are likelier than any one text token, a timestamp it is.
        let timestampMass = Self.logSumExp(logProbabilities[beg...])
        let bestText = logProbabilities[..<beg].max() ?? -.infinity
        if timestampMass > bestText {
            for id in 0..<beg { logProbabilities[id] = -.infinity }
        }
        return logProbabilities
    }

    static func logSoftmax(_ scores: [Float]) -> [Float] {
        let total = logSumExp(scores[...])
        return scores.map { $0 > -.infinity ? $0 - total : -.infinity }
    }

    /// -infinity when every score is.
    static func logSumExp(_ scores: ArraySlice<Float>) -> Float {
        guard let top = scores.max(), top > -.infinity else { return -.infinity }
        var sum: Float = 0
        for score in scores where score > -.infinity { sum += expf(score - top) }
        return logf(sum) + top
    }
}
