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

/// The first 30 s window of some audio as the runtime hears it, and where the time went.
public struct RuntimeWindow: Sendable {
    /// Text tokens and timestamps, without the end of text.
    public var tokens: [Int32]
    public var text: String
    public var melSeconds: Double
    public var encodeSeconds: Double
    public var decodeSeconds: Double
}

extension RuntimeWhisperModel {
    /// The first window of 16 kHz mono `samples`, decoded greedily; `language` nil for an
    /// English-only model.
    public func firstWindow(of samples: [Float], language: String?) throws -> RuntimeWindow {
        var clock = ContinuousClock.now
        func lap() -> Double {
            let now = ContinuousClock.now
            defer { clock = now }
            let elapsed = (now - clock).components
            return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
        }
        let mel = try LogMelSpectrogram(samples: samples, melCount: network.dimensions.melCount)
        let melSeconds = lap()
        var decoding = try network.decoding(try network.encode(mel.window(at: 0)))
        let encodeSeconds = lap()
        let tokens = try GreedyWindow.decode(&decoding, prompt: try vocabulary.prompt(language: language, translating: false),
                                             rules: vocabulary.rules, maxTokens: WhisperEngine.maxTokensPerWindow)
            .map(\.id).filter { $0 != vocabulary.endOfText }
        let text = String(decoding: tokens.flatMap(vocabulary.bytes(of:)), as: UTF8.self)
        return RuntimeWindow(tokens: tokens, text: text, melSeconds: melSeconds, encodeSeconds: encodeSeconds, decodeSeconds: lap())
    }
}
