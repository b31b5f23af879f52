import Foundation

/// The element-wise work between matrix products, sixteen lanes at a time. libm's `expf` and
/// `erff` are scalar calls; a 30 s window of the smallest model needs tens of millions of each.
enum VectorMath {
    typealias Lanes = SIMD16<Float>

    /// e^x for x ≤ 0 (all the softmax and erf need) within about 2 ulp (Cephes' expf: 2^n · a
    /// degree-6 polynomial of the remainder); below -87 it is about 1e-38. (`clamped` would be
    /// fourteen times slower than the whole function: it runs lane by lane.)
    @inline(__always)
    static func exp(_ x: Lanes) -> Lanes {
        let clamped = x.replacing(with: -87.3, where: x .< -87.3)
        // Adding and taking away 1.5·2²³ rounds to the nearest whole number, and leaves it in
        // the sum's low mantissa bits (Swift's vector rounding and float-to-integer conversion
        // call libm lane by lane).
        let magic = Lanes(repeating: 12_582_912)
        let shifted = clamped * 1.442_695_04 + magic
        let n = shifted - magic
        var r = clamped - n * 0.693_359_375
        r = r + n * 2.121_944_4e-4
        var p = Lanes(repeating: 1.987_569_15e-4)
        p = p * r + 1.398_199_95e-3
        p = p * r + 8.333_451_9e-3
        p = p * r + 4.166_579_6e-2
        p = p * r + 1.666_666_55e-1
        p = p * r + 5.000_000_1e-1
        p = p * r * r + r + 1
        let whole = unsafeBitCast(shifted, to: SIMD16<Int32>.self) &- unsafeBitCast(magic, to: SIMD16<Int32>.self)
        let exponent = (whole &+ 127) &<< 23
        return p * unsafeBitCast(exponent, to: Lanes.self)
    }

    /// erf(x) within 5e-7 in float arithmetic (Abramowitz and Stegun 7.1.26, 1.5e-7 exact).
    @inline(__always)
    static func erf(_ x: Lanes) -> Lanes {
        let a = x.replacing(with: -x, where: x .< 0)
        let t = 1 / (1 + 0.327_591_1 * a)
        var p = Lanes(repeating: 1.061_405_429)
        p = p * t - 1.453_152_027
        p = p * t + 1.421_413_741
        p = p * t - 0.284_496_736
        p = p * t + 0.254_829_592
        let y = 1 - p * t * exp(-a * a)
        return y.replacing(with: -y, where: x .< 0)
    }

    /// Applies `body` to every value, sixteen at a time (the tail padded with zeros).
    @inline(__always)
    static func transform(_ values: UnsafeMutableBufferPointer<Float>, _ body: (Lanes) -> Lanes) {
        let whole = values.count / 16 * 16
        if let base = values.baseAddress {
            let raw = UnsafeMutableRawPointer(base)
            var offset = 0
            while offset < whole * 4 {
                raw.storeBytes(of: body(raw.loadUnaligned(fromByteOffset: offset, as: Lanes.self)), toByteOffset: offset, as: Lanes.self)
                offset += 64
            }
        }
        if whole < values.count {
            var lanes = Lanes(repeating: 0)
            for j in whole ..< values.count { lanes[j - whole] = values[j] }
            let out = body(lanes)
            for j in whole ..< values.count { values[j] = out[j - whole] }
        }
    }

    /// Lane-wise reductions over `values`; the tail is folded in one by one.
    @inline(__always)
    static func reduce(_ values: UnsafeBufferPointer<Float>, _ start: Float, _ lanes: (Lanes, Lanes) -> Lanes, _ scalar: (Float, Float) -> Float,
                       _ finish: (Lanes) -> Float) -> Float {
        var accumulator = Lanes(repeating: start)
        let whole = values.count / 16 * 16
        if let base = values.baseAddress {
            let raw = UnsafeRawPointer(base)
            var offset = 0
            while offset < whole * 4 {
                accumulator = lanes(accumulator, raw.loadUnaligned(fromByteOffset: offset, as: Lanes.self))
                offset += 64
            }
        }
        var result = finish(accumulator)
        for i in whole ..< values.count { result = scalar(result, values[i]) }
        return result
    }

    /// out += a ⊙ b, element by element (all three the same length).
    @inline(__always)
    static func multiplyAdd(_ a: UnsafeBufferPointer<Float>, _ b: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        precondition(a.count == out.count && b.count == out.count)
        let whole = out.count / 16 * 16
        if let a = a.baseAddress, let b = b.baseAddress, let out = out.baseAddress {
            var i = 0
            while i < whole {
                let sum = UnsafeRawPointer(out + i).loadUnaligned(as: Lanes.self)
                    + UnsafeRawPointer(a + i).loadUnaligned(as: Lanes.self) * UnsafeRawPointer(b + i).loadUnaligned(as: Lanes.self)
                UnsafeMutableRawPointer(out + i).storeBytes(of: sum, as: Lanes.self)
                i += 16
            }
        }
        for i in whole ..< out.count { out[i] += a[i] * b[i] }
    }

    static func maximum(_ values: UnsafeBufferPointer<Float>) -> Float {
        reduce(values, -.infinity, { $0.replacing(with: $1, where: $1 .> $0) }, { Swift.max($0, $1) }, { $0.max() })
    }

    static func sum(_ values: UnsafeBufferPointer<Float>) -> Float {
        reduce(values, 0, { $0 + $1 }, { $0 + $1 }, { $0.sum() })
    }

    static func largestMagnitude(_ values: UnsafeBufferPointer<Float>) -> Float {
        reduce(values, 0, { a, x in
            let magnitude = x.replacing(with: -x, where: x .< 0)
            return a.replacing(with: magnitude, where: magnitude .> a)
        }, { Swift.max($0, abs($1)) }, { $0.max() })
    }

    /// round(x · scale) + 128 into `out`: |x · scale| ≤ 127 gives bytes 1...255.
    static func shiftedBytes(_ x: UnsafeBufferPointer<Float>, scale: Float, into out: UnsafeMutableBufferPointer<UInt8>) {
        let magic = Lanes(repeating: 12_582_912)
        let whole = x.count / 16 * 16
        var i = 0
        while i < whole {
            let lanes = UnsafeRawPointer(x.baseAddress! + i).loadUnaligned(as: Lanes.self) * scale + magic
            // The sum's low mantissa bits hold the rounded value (as exp's rounding).
            let rounded = unsafeBitCast(lanes, to: SIMD16<Int32>.self) &- unsafeBitCast(magic, to: SIMD16<Int32>.self) &+ 128
            UnsafeMutableRawPointer(out.baseAddress! + i).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: rounded), as: SIMD16<UInt8>.self)
            i += 16
        }
        for j in whole ..< x.count {
            // Activations that overflowed to an infinity (a model with huge weights) are 0, not a trap.
            let v = x[j] * scale
            out[j] = v.isFinite ? UInt8(Int32(min(127, max(-127, v.rounded()))) + 128) : 128
        }
    }

    /// `count` IEEE half-precision values as floats, by their bits: without F16C in the
    /// baseline instruction set each `Float(Float16)` is a library call, and a model holds tens
    /// of millions of values (this loop: about 2 ns a value). Normal, subnormal, infinite and NaN
    /// values alike: the exponent is rebased, a subnormal renormalised by one float subtraction.
    static func widened(halves raw: UnsafeRawBufferPointer, count: Int) -> [Float] {
        [Float](unsafeUninitializedCapacity: count) { out, initialized in
            for i in 0 ..< count {
                let h = UInt32(raw.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self))
                var bits = (h & 0x7FFF) << 13
                let exponent = bits & (0x7C00 << 13)
                bits &+= (127 - 15) << 23
                let value: Float
                if exponent == 0x7C00 << 13 {
                    value = Float(bitPattern: bits &+ ((128 - 16) << 23))
                } else if exponent == 0 {
                    value = Float(bitPattern: bits &+ (1 << 23)) - Float(bitPattern: 113 << 23)
                } else {
                    value = Float(bitPattern: bits)
                }
                out[i] = Float(bitPattern: value.bitPattern | (h & 0x8000) << 16)
            }
            initialized = count
        }
    }

    /// GELU with the exact error function, as Whisper was trained.
    static func gelu(_ values: UnsafeMutableBufferPointer<Float>) {
        let block = 4096
        Parallel.rows((values.count + block - 1) / block) { part in
            transform(UnsafeMutableBufferPointer(rebasing: values[part * block ..< min(values.count, (part + 1) * block)])) { x in
                0.5 * x * (1 + erf(x * 0.707_106_78))
            }
        }
    }

    /// Each row of `rows` (row length `width`) normalised to zero mean and unit variance, then
    /// scaled by `gamma` and shifted by `beta` (epsilon 1e-5, as Whisper).
    static func layerNorm(_ rows: UnsafeMutableBufferPointer<Float>, width: Int, gamma: [Float], beta: [Float]) {
        precondition(rows.count % width == 0 && gamma.count == width && beta.count == width)
        gamma.withUnsafeBufferPointer { g in
            beta.withUnsafeBufferPointer { b in
                Parallel.rows(rows.count / width) { row in
                    let base = row * width
                    var sum: Float = 0
                    for j in 0 ..< width { sum += rows[base + j] }
                    let mean = sum / Float(width)
                    var squares: Float = 0
                    for j in 0 ..< width {
                        let d = rows[base + j] - mean
                        squares += d * d
                    }
                    let scale = 1 / (squares / Float(width) + 1e-5).squareRoot()
                    for j in 0 ..< width { rows[base + j] = (rows[base + j] - mean) * scale * g[j] + b[j] }
                }
            }
        }
    }

    /// Each row (length `width`, of which the first `valid` count) turned into probabilities;
    /// the rest become 0 (a causal mask).
    static func softmax(_ row: UnsafeMutableBufferPointer<Float>, valid: Int) {
        let head = UnsafeMutableBufferPointer(rebasing: row[0 ..< valid])
        let top = maximum(UnsafeBufferPointer(head))
        transform(head) { exp($0 - top) }
        let inverse = 1 / sum(UnsafeBufferPointer(head))
        transform(head) { $0 * inverse }
        for j in valid ..< row.count { row[j] = 0 }
    }
}
