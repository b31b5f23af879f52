/// Attention's pre-normed block, the same in encoder and decoder: layer norm, fused
/// projections, scaled dot products per head, output projection.
struct NormedProjection {
    let gamma: [Float]
    let beta: [Float]
    let linear: Linear

    init(_ source: some WeightSource, norm: String, linear name: String, outputs: Int, inputs: Int, precision: WeightPrecision) throws {
        gamma = try source.floats("\(norm)/gamma", [inputs])
        beta = try source.floats("\(norm)/beta", [inputs])
        linear = try Linear(source.tensor("\(name)/weight", [outputs, inputs]), bias: source.floats("\(name)/bias", [outputs]), precision: precision)
    }

    /// layerNorm(x)·Wᵀ + b for `rows` rows.
    func apply(_ x: [Float], rows: Int) throws -> [Float] {
        var normed = x
        normed.withUnsafeMutableBufferPointer { VectorMath.layerNorm($0, width: linear.inputs, gamma: gamma, beta: beta) }
        return try linear(normed, rows: rows)
    }
}

extension Linear {
    init(_ source: some WeightSource, _ name: String, outputs: Int, inputs: Int, precision: WeightPrecision) throws {
        self.init(try source.tensor("\(name)/weight", [outputs, inputs]), bias: try source.floats("\(name)/bias", [outputs]), precision: precision)
    }

    func callAsFunction(_ x: [Float], rows: Int) throws -> [Float] {
        var y = [Float](repeating: 0, count: rows * outputs)
        try x.withUnsafeBufferPointer { x in try y.withUnsafeMutableBufferPointer { try apply(x, rows: rows, into: $0) } }
        return y
    }
}

/// Scaled dot-product attention of one head: out[q×d] = softmax(Q·Kᵀ/√d)·V, where row i of
/// Q sees the first `visible(i)` rows of K and V. Q, K and V are column blocks of wider rows.
struct HeadAttention {
    let headWidth: Int

    func callAsFunction(
        queries: UnsafeBufferPointer<Float>, queryStride: Int, queryRows: Int,
        keys: UnsafeBufferPointer<Float>, values: UnsafeBufferPointer<Float>, keyStride: Int, keyRows: Int,
        visible: (Int) -> Int, scores: UnsafeMutableBufferPointer<Float>,
        into out: UnsafeMutableBufferPointer<Float>, outStride: Int
    ) throws {
        precondition(scores.count >= queryRows * keyRows)
        try MatrixProduct.float(m: queryRows, n: keyRows, k: headWidth, a: queries, lda: queryStride, b: keys, ldb: keyStride,
                                transposedB: true, c: scores, alpha: 1 / Float(headWidth).squareRoot())
        Parallel.rows(queryRows) { row in
            VectorMath.softmax(UnsafeMutableBufferPointer(rebasing: scores[row * keyRows ..< (row + 1) * keyRows]), valid: visible(row))
        }
        try MatrixProduct.float(m: queryRows, n: headWidth, k: keyRows, a: UnsafeBufferPointer(scores), b: values, ldb: keyStride,
                                transposedB: false, c: out, ldc: outStride)
    }
}
