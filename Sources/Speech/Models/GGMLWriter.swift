import Foundation
import WhisperRuntime

/// Appends the little-endian pieces of a ggml whisper file.
struct GGMLWriter {
    private(set) var data = Data()

    mutating func int32(_ value: Int) { append(Int32(value).littleEndian) }
    mutating func uint32(_ value: UInt32) { append(value.littleEndian) }
    mutating func bytes<C: Collection>(_ bytes: C) where C.Element == UInt8 { data.append(contentsOf: bytes) }
    mutating func floats(_ values: [Float]) { values.withUnsafeBytes { data.append(contentsOf: $0) } }

    mutating func header(_ hparams: WhisperHyperparameters) {
        uint32(WhisperHyperparameters.magic)
        hparams.fields.forEach { int32($0) }
    }

    mutating func melFilters(_ weights: [Float], melCount: Int) {
        int32(melCount)
        int32(weights.count / melCount)
        floats(weights)
    }

    mutating func vocabulary(_ tokens: [[UInt8]]) {
        int32(tokens.count)
        for token in tokens {
            uint32(UInt32(token.count))
            bytes(token)
        }
    }

    /// `shape` is row-major (numpy order); ggml stores the dimensions innermost first.
    mutating func tensor(name: String, shape: [Int], type: GGMLStorageType, payload: Data) {
        int32(shape.count)
        int32(name.utf8.count)
        int32(type.rawValue)
        shape.reversed().forEach { int32($0) }
        bytes(name.utf8)
        data.append(payload)
    }

    private mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value) { data.append(contentsOf: $0) }
    }
}
