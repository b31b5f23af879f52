/// Whisper's encoder: two convolutions over the log-mel frames, sinusoidal positions, and
/// pre-norm transformer layers, 30 s of audio to `audioContext` vectors.
struct AudioEncoder {
    let dimensions: WhisperHyperparameters
    private let conv1: Linear
    private let conv2: Linear
    private let positions: [Float]
    private let layers: [Layer]
    private let finalGamma: [Float]
    private let finalBeta: [Float]

    private struct Layer {
        let attention: NormedProjection
        let output: Linear
        let up: NormedProjection
        let down: Linear
    }

    init(_ source: some WeightSource, dimensions d: WhisperHyperparameters, precision: WeightPrecision) throws {
        dimensions = d
        let width = d.audioState
        // Kernels of width 3 as matrices over (channel, tap) columns; float32 (a small share of the work).
        conv1 = Linear(try source.tensor("encoder/conv1/weight", [width, d.melCount, 3]),
                       bias: try source.floats("encoder/conv1/bias", [width]), precision: .float32)
        conv2 = Linear(try source.tensor("encoder/conv2/weight", [width, width, 3]),
                       bias: try source.floats("encoder/conv2/bias", [width]), precision: .float32)
        positions = try source.floats("encoder/position_encodings/encodings", [d.audioContext, width])
        layers = try (0 ..< d.audioLayers).map { i in
            let prefix = "encoder/layer_\(i)"
            return Layer(
                attention: try NormedProjection(source, norm: "\(prefix)/self_attention/layer_norm", linear: "\(prefix)/self_attention/linear_0",
                                                outputs: 3 * width, inputs: width, precision: precision),
                output: try Linear(source, "\(prefix)/self_attention/linear_1", outputs: width, inputs: width, precision: precision),
                up: try NormedProjection(source, norm: "\(prefix)/ffn/layer_norm", linear: "\(prefix)/ffn/linear_0",
                                         outputs: 4 * width, inputs: width, precision: precision),
                down: try Linear(source, "\(prefix)/ffn/linear_1", outputs: width, inputs: 4 * width, precision: precision))
        }
        finalGamma = try source.floats("encoder/layer_norm/gamma", [width])
        finalBeta = try source.floats("encoder/layer_norm/beta", [width])
    }

    /// `mel` (melCount × 2·audioContext frames, mel-major) to audioContext × audioState.
    func callAsFunction(_ mel: [Float]) throws -> [Float] {
        let d = dimensions, frames = 2 * d.audioContext, width = d.audioState
        precondition(mel.count == d.melCount * frames)
        // conv1: stride 1, one frame of zeros each side.
        var columns = [Float](repeating: 0, count: frames * d.melCount * 3)
        for t in 0 ..< frames {
            for c in 0 ..< d.melCount {
                for k in 0 ..< 3 where t + k - 1 >= 0 && t + k - 1 < frames {
                    columns[(t * d.melCount + c) * 3 + k] = mel[c * frames + t + k - 1]
                }
            }
        }
        var hidden = try conv1(columns, rows: frames)
        hidden.withUnsafeMutableBufferPointer { VectorMath.gelu($0) }
        // conv2: stride 2.
        columns = [Float](repeating: 0, count: d.audioContext * width * 3)
        for t in 0 ..< d.audioContext {
            for k in 0 ..< 3 {
                let source = 2 * t + k - 1
                guard source >= 0, source < frames else { continue }
                for c in 0 ..< width { columns[(t * width + c) * 3 + k] = hidden[source * width + c] }
            }
        }
        var x = try conv2(columns, rows: d.audioContext)
        x.withUnsafeMutableBufferPointer { VectorMath.gelu($0) }
        for i in x.indices { x[i] += positions[i] }

        let rows = d.audioContext, headWidth = width / d.audioHeads
        var scores = [Float](repeating: 0, count: rows * rows)
        for layer in layers {
            let qkv = try layer.attention.apply(x, rows: rows)
            var mixed = [Float](repeating: 0, count: rows * width)
            try qkv.withUnsafeBufferPointer { qkv in
                try scores.withUnsafeMutableBufferPointer { scores in
                    try mixed.withUnsafeMutableBufferPointer { mixed in
                        for h in 0 ..< d.audioHeads {
                            let column = h * headWidth
                            try HeadAttention(headWidth: headWidth)(
                                queries: UnsafeBufferPointer(rebasing: qkv[column...]), queryStride: 3 * width, queryRows: rows,
                                keys: UnsafeBufferPointer(rebasing: qkv[(width + column)...]),
                                values: UnsafeBufferPointer(rebasing: qkv[(2 * width + column)...]), keyStride: 3 * width, keyRows: rows,
                                visible: { _ in rows }, scores: scores,
                                into: UnsafeMutableBufferPointer(rebasing: mixed[column...]), outStride: width)
                        }
                    }
                }
            }
            let attended = try layer.output(mixed, rows: rows)
            for i in x.indices { x[i] += attended[i] }
            var up = try layer.up.apply(x, rows: rows)
            up.withUnsafeMutableBufferPointer { VectorMath.gelu($0) }
            let down = try layer.down(up, rows: rows)
            for i in x.indices { x[i] += down[i] }
        }
        x.withUnsafeMutableBufferPointer { VectorMath.layerNorm($0, width: width, gamma: finalGamma, beta: finalBeta) }
        return x
    }
}
