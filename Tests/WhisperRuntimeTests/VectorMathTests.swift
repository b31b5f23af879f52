import Foundation
import Testing
@testable import WhisperRuntime

@Suite struct VectorMathTests {
    /// Every one of the 65,536 half-precision bit patterns widens as Swift's own conversion does
    /// (NaNs to a NaN), at every position of a sixteen-lane block and in the tail.
    @Test func everyHalfWidensExactly() {
        let patterns = (0 ... UInt16.max).map { $0 } + [0x3C00, 0x8001, 0x7C01]
        let widened = patterns.withUnsafeBytes { VectorMath.widened(halves: $0, count: patterns.count) }
        for (bits, value) in zip(patterns, widened) {
            let expected = Float(Float16(bitPattern: bits))
            #expect(expected.isNaN ? value.isNaN : value.bitPattern == expected.bitPattern, "half 0x\(String(bits, radix: 16))")
        }
    }

    /// The polynomial exp and erf against libm where the softmax and GELU use them.
    @Test func expAndErfAreWithinTheirBounds() {
        for start in stride(from: -100 as Float, to: 0, by: 0.37) {
            let x = VectorMath.Lanes((0 ..< 16).map { start + Float($0) * 0.02 })
            let e = VectorMath.exp(x), f = VectorMath.erf(x / 10)
            for j in 0 ..< 16 {
                let expected = Foundation.exp(x[j])
                #expect(abs(e[j] - expected) <= max(2e-7 * expected, 1e-37), "exp(\(x[j]))")
                #expect(abs(f[j] - Foundation.erf(x[j] / 10)) <= 5e-7, "erf(\(x[j] / 10))")
                #expect(abs(VectorMath.erf(-x / 10)[j] + f[j]) <= 1e-7)
            }
        }
    }

    @Test func softmaxMasksAndNormalises() {
        var row: [Float] = [1, 2, 3, 4, 5, 6]
        row.withUnsafeMutableBufferPointer { VectorMath.softmax($0, valid: 4) }
        let expected = [1, 2, 3, 4].map { Foundation.exp(Float($0) - 4) }
        let sum = expected.reduce(0, +)
        #expect(zip(row.prefix(4), expected).allSatisfy { abs($0 - $1 / sum) < 1e-6 })
        #expect(row.suffix(2) == [0, 0])
    }
}
