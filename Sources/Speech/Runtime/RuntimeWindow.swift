import Foundation
import WhisperRuntime

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
        let tokens = try RuntimeTranscriber(model: self).greedy(&decoding, prompt: try vocabulary.prompt(language: language, translating: false))
            .map(\.id).filter { $0 != vocabulary.endOfText }
        let text = String(decoding: tokens.flatMap(vocabulary.bytes(of:)), as: UTF8.self)
        return RuntimeWindow(tokens: tokens, text: text, melSeconds: melSeconds, encodeSeconds: encodeSeconds, decodeSeconds: lap())
    }
}
