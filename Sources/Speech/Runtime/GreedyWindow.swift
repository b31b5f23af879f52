import Foundation
import WhisperRuntime

/// One 30 s window decoded at temperature 0 under Whisper's token rules: the likeliest allowed
/// token each step, until the end of text or the window's token budget.
struct GreedyWindow {
    struct Token: Equatable {
        var id: Int32
        var probability: Float
    }

    /// The tokens after `prompt` (the end of text included when reached).
    static func decode(_ decoding: inout WindowDecoding, prompt: [Int32], rules: WhisperTokenRules, maxTokens: Int) throws -> [Token] {
        var logits = try decoding.logits(after: prompt, past: 0)
        var tokens: [Token] = []
        var ids: [Int32] = []
        while tokens.count < maxTokens {
            let logProbabilities = rules.logProbabilities(logits, after: ids)
            var best = 0
            for i in logProbabilities.indices where logProbabilities[i] > logProbabilities[best] { best = i }
            tokens.append(Token(id: Int32(best), probability: exp(logProbabilities[best])))
            ids.append(Int32(best))
            if Int32(best) == rules.endOfText { break }
            logits = try decoding.logits(after: [Int32(best)], past: prompt.count + ids.count - 1)
        }
        return tokens
    }
}
