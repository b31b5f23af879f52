/// Whisper's decoder: token and position embeddings, pre-norm layers of causal self-attention,
/// cross-attention over the encoder's output, and a feed-forward block; the output projection
/// shares the token embedding.
struct TextDecoder {
    let dimensions: WhisperHyperparameters
    private let embedding: Linear
    private let positions: [Float]
    private let layers: [Layer]
    private let finalGamma: [Float]
    private let finalBeta: [Float]

    private struct Layer {
        let selfAttention: NormedProjection
        let selfOutput: Linear
        let crossQuery: NormedProjection
        /// Keys and values of the encoder's output, computed once a window.
        let crossKeysValues: Linear
        let crossOutput: Linear
        let up: NormedProjection
        let down: Linear
    }

    init(_ source: some WeightSource, dimensions d: WhisperHyperparameters, precision: WeightPrecision) throws {
        dimensions = d
        let width = d.textState
        embedding = Linear(try source.tensor("decoder/embeddings/weight", [d.vocabularySize, width]), bias: nil, precision: precision)
        positions = try source.floats("decoder/position_encodings/encodings", [d.textContext, width])
        layers = try (0 ..< d.textLayers).map { i in
            let prefix = "decoder/layer_\(i)"
            return Layer(
                selfAttention: try NormedProjection(source, norm: "\(prefix)/self_attention/layer_norm", linear: "\(prefix)/self_attention/linear_0",
                                                    outputs: 3 * width, inputs: width, precision: precision),
                selfOutput: try Linear(source, "\(prefix)/self_attention/linear_1", outputs: width, inputs: width, precision: precision),
                crossQuery: try NormedProjection(source, norm: "\(prefix)/attention/layer_norm", linear: "\(prefix)/attention/linear_0",
                                                 outputs: width, inputs: width, precision: precision),
                crossKeysValues: try Linear(source, "\(prefix)/attention/linear_1", outputs: 2 * width, inputs: d.audioState, precision: precision),
                crossOutput: try Linear(source, "\(prefix)/attention/linear_2", outputs: width, inputs: width, precision: precision),
                up: try NormedProjection(source, norm: "\(prefix)/ffn/layer_norm", linear: "\(prefix)/ffn/linear_0",
                                         outputs: 4 * width, inputs: width, precision: precision),
                down: try Linear(source, "\(prefix)/ffn/linear_1", outputs: width, inputs: 4 * width, precision: precision))
        }
        finalGamma = try source.floats("decoder/layer_norm/gamma", [width])
        finalBeta = try source.floats("decoder/layer_norm/beta", [width])
    }

    /// What one window's decoding keeps between steps: the encoder's keys and values for each
    /// layer and the self-attention cache of the tokens so far.
    struct State {
        /// Per layer: audioContext rows of [keys | values].
        let cross: [[Float]]
        /// Per layer: textContext rows of keys and of values.
        var keys: [[Float]]
        var values: [[Float]]
    }

    func state(encoded audio: [Float]) throws -> State {
        let d = dimensions
        let cross = try layers.map { try $0.crossKeysValues(audio, rows: d.audioContext) }
        let empty = [Float](repeating: 0, count: d.textContext * d.textState)
        return State(cross: cross, keys: Array(repeating: empty, count: layers.count), values: Array(repeating: empty, count: layers.count))
    }

    /// The logits after each of `tokens`, which take positions `past`..., replacing whatever
    /// the cache held from `past` on; returns the last token's row (vocabularySize scores).
    func logits(after tokens: [Int32], past: Int, state: inout State) throws -> [Float] {
        let d = dimensions, width = d.textState, n = tokens.count, headWidth = width / d.textHeads
        guard n > 0, past >= 0, past + n <= d.textContext else {
            throw RuntimeError.invalidRequest("a Whisper window holds \(d.textContext) tokens; asked to decode \(n) at position \(past)")
        }
        var x = [Float](repeating: 0, count: n * width)
        for (i, token) in tokens.enumerated() {
            guard token >= 0, Int(token) < d.vocabularySize else {
                throw RuntimeError.invalidRequest("token \(token) is outside the model's vocabulary of \(d.vocabularySize)")
            }
            let row = embedding.row(Int(token))
            for j in 0 ..< width { x[i * width + j] = row[j] + positions[(past + i) * width + j] }
        }
        let total = past + n
        var scores = [Float](repeating: 0, count: n * max(total, d.audioContext))
        for (l, layer) in layers.enumerated() {
            // Causal self-attention over the cache.
            let qkv = try layer.selfAttention.apply(x, rows: n)
            for i in 0 ..< n {
                for j in 0 ..< width {
                    state.keys[l][(past + i) * width + j] = qkv[i * 3 * width + width + j]
                    state.values[l][(past + i) * width + j] = qkv[i * 3 * width + 2 * width + j]
                }
            }
            var mixed = [Float](repeating: 0, count: n * width)
            try attend(heads: d.textHeads, headWidth: headWidth, queries: qkv, queryStride: 3 * width, rows: n,
                       keys: state.keys[l], values: state.values[l], keyStride: width, keyRows: total, visible: { past + $0 + 1 },
                       scores: &scores, into: &mixed)
            let attended = try layer.selfOutput(mixed, rows: n)
            for i in x.indices { x[i] += attended[i] }
            // Cross-attention over the audio.
            let query = try layer.crossQuery.apply(x, rows: n)
            try attend(heads: d.textHeads, headWidth: headWidth, queries: query, queryStride: width, rows: n,
                       keys: state.cross[l], valuesOffset: width, keyStride: 2 * width, keyRows: d.audioContext, visible: { _ in d.audioContext },
                       scores: &scores, into: &mixed)
            let heard = try layer.crossOutput(mixed, rows: n)
            for i in x.indices { x[i] += heard[i] }
            var up = try layer.up.apply(x, rows: n)
            up.withUnsafeMutableBufferPointer { VectorMath.gelu($0) }
            let down = try layer.down(up, rows: n)
            for i in x.indices { x[i] += down[i] }
        }
        var last = Array(x[(n - 1) * width ..< n * width])
        last.withUnsafeMutableBufferPointer { VectorMath.layerNorm($0, width: width, gamma: finalGamma, beta: finalBeta) }
        return try embedding(last, rows: 1)
    }

    private func attend(
        heads: Int, headWidth: Int, queries: [Float], queryStride: Int, rows: Int,
        keys: [Float], values: [Float]? = nil, valuesOffset: Int = 0, keyStride: Int, keyRows: Int, visible: (Int) -> Int,
        scores: inout [Float], into out: inout [Float]
    ) throws {
        let width = heads * headWidth
        try queries.withUnsafeBufferPointer { q in
            try keys.withUnsafeBufferPointer { k in
                try (values ?? keys).withUnsafeBufferPointer { v in
                    try scores.withUnsafeMutableBufferPointer { scores in
                        try out.withUnsafeMutableBufferPointer { out in
                            for h in 0 ..< heads {
                                let column = h * headWidth
                                try HeadAttention(headWidth: headWidth)(
                                    queries: UnsafeBufferPointer(rebasing: q[column...]), queryStride: queryStride, queryRows: rows,
                                    keys: UnsafeBufferPointer(rebasing: k[column...]),
                                    values: UnsafeBufferPointer(rebasing: v[(valuesOffset + column)...]), keyStride: keyStride, keyRows: keyRows,
                                    visible: visible, scores: UnsafeMutableBufferPointer(rebasing: scores[0 ..< rows * keyRows]),
                                    into: UnsafeMutableBufferPointer(rebasing: out[column...]), outStride: width)
                            }
                        }
                    }
                }
            }
        }
    }
}
