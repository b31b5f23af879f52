/// How the runtime stores the weights of its linear layers.
public enum WeightPrecision: String, Sendable, CaseIterable {
    /// int8, one scale per output row, with activations quantized per row at each product and
    /// accumulated exactly in int32 (CTranslate2's int8 scheme): a quarter of float32's memory
    /// traffic and the CPU's integer dot-product instructions.
    case int8
    /// float32 throughout: slower, for checking what quantization changes.
    case float32

    /// int8 where the CPU adds u8×s8 products exactly (VNNI); float32 elsewhere, where oneDNN
    /// 2.6's int8 kernels saturate 16-bit partial sums (measured on an AVX2 CPU: a decoding's
    /// scores moved by 0.4 with the number of rows in the product, 7-bit weights and all).
    public static var preferred: WeightPrecision { MatrixProduct.addsProductsExactly ? .int8 : .float32 }
}

/// y = x·Wᵀ + b for a weight W of `outputs` rows and `inputs` columns.
struct Linear {
    let outputs: Int
    let inputs: Int
    let bias: [Float]?
    private let storage: Storage

    private enum Storage {
        case float([Float])
        /// q: outputs × inputs; w ≈ q / scales[row]; correction[row] = 128 · Σ q[row]
        /// (activations are shifted by 128 into unsigned bytes for the product).
        case int8(q: [Int8], scales: [Float], inverseScales: [Float], correction: [Int32])
    }

    init(_ tensor: WeightTensor, bias: [Float]?, precision: WeightPrecision) {
        outputs = tensor.shape[0]
        inputs = tensor.count / outputs
        self.bias = bias
        switch precision {
        case .float32:
            storage = .float(tensor.floats())
        case .int8:
            let (q, scales) = Self.quantized(tensor, rows: outputs, width: inputs)
            var correction = [Int32](repeating: 0, count: outputs)
            for row in 0 ..< outputs {
                var sum: Int32 = 0
                for j in 0 ..< inputs { sum += Int32(q[row * inputs + j]) }
                correction[row] = 128 * sum
            }
            storage = .int8(q: q, scales: scales, inverseScales: scales.map { 1 / $0 }, correction: correction)
        }
    }

    /// Row-wise symmetric int8: each row's largest magnitude becomes `weightLevels`. A tensor
    /// stored in int8 is taken as it is where the products are exact.
    private static func quantized(_ tensor: WeightTensor, rows: Int, width: Int) -> ([Int8], [Float]) {
        if case .int8(let data, let scales) = tensor.storage, Self.weightLevels == 127 {
            return (data.withUnsafeBytes { Array($0.bindMemory(to: Int8.self)) }, scales)
        }
        let values = tensor.floats()
        var q = [Int8](repeating: 0, count: values.count)
        var scales = [Float](repeating: 1, count: rows)
        for row in 0 ..< rows {
            var top: Float = 0
            for j in 0 ..< width { top = max(top, abs(values[row * width + j])) }
            let scale: Float = top > 0 ? Self.weightLevels / top : 1
            scales[row] = scale
            for j in 0 ..< width { q[row * width + j] = Int8((values[row * width + j] * scale).rounded()) }
        }
        return (q, scales)
    }

    /// The largest weight magnitude in the int8 products: 127 where the CPU adds u8×s8 products
    /// exactly (VNNI); 31 without it, where oneDNN's kernels add products in 16 bits first: with
    /// 63 the scores still depended on the product's row count (4·255·31 fits 16 bits). Exact but
    /// coarse (tiny.en: 196 errors on the long-form half against float32's 174), so int8 is not
    /// `preferred` there.
    static let weightLevels: Float = MatrixProduct.addsProductsExactly ? 127 : 31

    /// `rows` rows of `x` (each `inputs` long) through the layer into `y` (each `outputs` long).
    func apply(_ x: UnsafeBufferPointer<Float>, rows: Int, into y: UnsafeMutableBufferPointer<Float>) throws {
        precondition(x.count >= rows * inputs && y.count >= rows * outputs)
        switch storage {
        case .float(let w):
            try w.withUnsafeBufferPointer { w in
                try MatrixProduct.float(m: rows, n: outputs, k: inputs, a: x, b: w, transposedB: true, c: y)
            }
        case .int8(let q, _, let inverseScales, let correction):
            var shifted = [UInt8](repeating: 128, count: rows * inputs)
            var rowScales = [Float](repeating: 1, count: rows)
            shifted.withUnsafeMutableBufferPointer { shifted in
                rowScales.withUnsafeMutableBufferPointer { rowScales in
                Parallel.rows(rows) { row in
                    let values = UnsafeBufferPointer(rebasing: x[row * inputs ..< (row + 1) * inputs])
                    let top = VectorMath.largestMagnitude(values)
                    let scale: Float = top > 0 ? 127 / top : 1
                    rowScales[row] = scale
                    VectorMath.shiftedBytes(values, scale: scale, into: UnsafeMutableBufferPointer(rebasing: shifted[row * inputs ..< (row + 1) * inputs]))
                }
                }
            }
            var products = [Int32](repeating: 0, count: rows * outputs)
            try shifted.withUnsafeBufferPointer { a in
                try q.withUnsafeBufferPointer { b in
                    try products.withUnsafeMutableBufferPointer { c in
                        try MatrixProduct.integer(m: rows, n: outputs, k: inputs, a: a, b: b, c: c)
                    }
                }
            }
            let zeros = bias == nil ? [Float](repeating: 0, count: outputs) : []
            products.withUnsafeBufferPointer { products in
                inverseScales.withUnsafeBufferPointer { inverseScales in
                    correction.withUnsafeBufferPointer { correction in
                        (bias ?? zeros).withUnsafeBufferPointer { bias in
                            Parallel.rows(rows) { row in
                                let inverse = 1 / rowScales[row]
                                let base = row * outputs
                                for n in 0 ..< outputs {
                                    y[base + n] = Float(products[base + n] &- correction[n]) * inverse * inverseScales[n] + bias[n]
                                }
                            }
                        }
                    }
                }
            }
            return
        }
        if let bias {
            for row in 0 ..< rows {
                for n in 0 ..< outputs { y[row * outputs + n] += bias[n] }
            }
        }
    }

    /// Row `row` of W as floats (the token embedding the output projection shares).
    func row(_ row: Int) -> [Float] {
        switch storage {
        case .float(let w):
            return Array(w[row * inputs ..< (row + 1) * inputs])
        case .int8(let q, let scales, _, _):
            return (0 ..< inputs).map { Float(q[row * inputs + $0]) / scales[row] }
        }
    }
}
