/// One Whisper model loaded for Capforge's own runtime: weights in memory (int8 by default),
/// the encoder run once per 30 s window, the decoder step by step over a cache.
public final class WhisperNetwork: Sendable {
    public let dimensions: WhisperHyperparameters
    public let precision: WeightPrecision
    private let encoder: AudioEncoder
    private let decoder: TextDecoder

    public init(weights: some WeightSource, dimensions: WhisperHyperparameters, precision: WeightPrecision = .int8) throws {
        guard dimensions.audioState % dimensions.audioHeads == 0, dimensions.textState % dimensions.textHeads == 0 else {
            throw RuntimeError.malformedWeights(name: "num_heads", reason: "the model's width does not divide into its heads")
        }
        self.dimensions = dimensions
        self.precision = precision
        encoder = try AudioEncoder(weights, dimensions: dimensions, precision: precision)
        decoder = try TextDecoder(weights, dimensions: dimensions, precision: precision)
    }

    /// The encoder's output for one window of the spectrogram (`LogMelSpectrogram.window`).
    public func encode(_ window: [Float]) throws -> EncodedWindow {
        guard window.count == dimensions.melCount * 2 * dimensions.audioContext else {
            throw RuntimeError.invalidRequest("an encoder window is \(dimensions.melCount) × \(2 * dimensions.audioContext) values, not \(window.count)")
        }
        return EncodedWindow(values: try encoder(window))
    }

    /// A decoding over `window`, with an empty token cache.
    public func decoding(_ window: EncodedWindow) throws -> WindowDecoding {
        WindowDecoding(decoder: decoder, state: try decoder.state(encoded: window.values))
    }

    /// Threads for the matrix products and the rows between them, for the calling thread: oneDNN
    /// runs on OpenMP, whose thread count each thread sets for itself.
    public static var threads: Int {
        get { MatrixProduct.threads }
        set { MatrixProduct.threads = newValue }
    }
}

/// The encoder's output for one 30 s window: audioContext × audioState values.
public struct EncodedWindow: Sendable {
    public let values: [Float]
}

/// The decoder's state for one window.
public struct WindowDecoding {
    let decoder: TextDecoder
    var state: TextDecoder.State

    /// Scores of every vocabulary token after `tokens`, decoded at positions `past`...: the
    /// cache from `past` on is replaced, so a caller can go back and decode another way.
    public mutating func logits(after tokens: [Int32], past: Int) throws -> [Float] {
        try decoder.logits(after: tokens, past: past, state: &state)
    }
}
