import Foundation

/// One named tensor of a model as its file stores it.
public struct WeightTensor: Sendable {
    public enum Storage: Sendable {
        case float32(Data)
        case float16(Data)
        /// Row-quantized: value = q / rowScales[row] (CTranslate2's int8 layout).
        case int8(Data, rowScales: [Float])
    }

    public var shape: [Int]
    public var storage: Storage

    public init(shape: [Int], storage: Storage) {
        self.shape = shape
        self.storage = storage
    }

    var count: Int { shape.reduce(1, *) }

    /// Every value as a float. The caller has checked the shape against the byte count.
    public func floats() -> [Float] {
        let n = count
        switch storage {
        case .float32(let data):
            return data.withUnsafeBytes { raw in (0 ..< n).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) } }
        case .float16(let data):
            return data.withUnsafeBytes { VectorMath.widened(halves: $0, count: n) }
        case .int8(let data, let scales):
            let width = n / max(1, scales.count)
            return data.withUnsafeBytes { raw in
                (0 ..< n).map { Float(raw.load(fromByteOffset: $0, as: Int8.self)) / scales[$0 / width] }
            }
        }
    }

    /// The index of the first NaN or infinity, read from the exponent bits.
    public func firstNonFinite() -> Int? {
        switch storage {
        case .float32(let data):
            return data.withUnsafeBytes { raw in
                (0 ..< raw.count / 4).first { raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) & 0x7F80_0000 == 0x7F80_0000 }
            }
        case .float16(let data):
            return data.withUnsafeBytes { raw in
                (0 ..< raw.count / 2).first { raw.loadUnaligned(fromByteOffset: $0 * 2, as: UInt16.self) & 0x7C00 == 0x7C00 }
            }
        case .int8:
            return nil
        }
    }

    /// The bytes the storage must hold for `shape`.
    /// The stored bytes, whatever their encoding.
    public var bytes: Data {
        switch storage {
        case .float32(let data), .float16(let data), .int8(let data, _): return data
        }
    }

    var elementWidth: Int {
        switch storage {
        case .float32: return 4
        case .float16: return 2
        case .int8: return 1
        }
    }
}

/// Where a model's tensors come from, by their CTranslate2 names ("encoder/conv1/weight").
public protocol WeightSource {
    func weight(_ name: String) throws -> WeightTensor
}

extension WeightSource {
    /// The tensor `name`, which must have exactly `shape` and hold the bytes it implies.
    func tensor(_ name: String, _ shape: [Int]) throws -> WeightTensor {
        let tensor = try weight(name)
        guard tensor.shape == shape else {
            throw RuntimeError.malformedWeights(name: name, reason: "shape \(tensor.shape), the model's dimensions imply \(shape)")
        }
        guard tensor.bytes.count == tensor.count * tensor.elementWidth else {
            throw RuntimeError.malformedWeights(name: name, reason: "\(tensor.bytes.count) bytes for shape \(shape)")
        }
        if case .int8(_, let scales) = tensor.storage, scales.count != shape[0] || !scales.allSatisfy({ $0.isFinite && $0 > 0 }) {
            throw RuntimeError.malformedWeights(name: name, reason: "its row scales are not one finite positive number a row")
        }
        // A NaN or an infinity would become NaN everywhere downstream (and an integer
        // conversion of one traps): refused here, by the bits, before anything is converted.
        if let index = tensor.firstNonFinite() {
            throw RuntimeError.malformedWeights(name: name, reason: "value \(index) is not a finite number")
        }
        return tensor
    }

    func floats(_ name: String, _ shape: [Int]) throws -> [Float] { try tensor(name, shape).floats() }
}
