import CapforgeCore
import Foundation
import WhisperRuntime

/// An installed ggml Whisper model's tensors, served under the CTranslate2 names the runtime
/// asks for: the importer's map read backwards (`tensorPlans`), the parts of a fused projection
/// joined (the key bias whisper.cpp drops comes back as zeros: softmax cancels it), and
/// block-quantized weights (q8_0, q5_0) expanded to floats for the runtime's own quantization.
struct GGMLWeights: WeightSource {
    let layout: WhisperModelFile.Layout
    let data: Data
    let path: String
    /// CTranslate2 name → the ggml tensors it is made of.
    private let sources: [String: [TensorPlan]]

    /// `url` must be a model `WhisperModelFile.layout` checked; a file changed since is caught
    /// by the bounds checks here.
    init(url: URL, layout: WhisperModelFile.Layout) throws {
        self.layout = layout
        path = url.path
        data = try Data(contentsOf: url, options: .alwaysMapped)
        let plans = tensorPlans(encoderLayers: layout.hyperparameters.audioLayers, decoderLayers: layout.hyperparameters.textLayers)
        sources = Dictionary(grouping: plans, by: \.source)
    }

    func weight(_ name: String) throws -> WeightTensor {
        guard let plans = sources[name], let first = plans.first else {
            throw SpeechError.modelInvalid(path: path, reason: "it has no tensor for \(name)")
        }
        let shape = layout.hyperparameters.shape(ofTensor: first.name)
        guard let parts = first.split?.parts else { return try tensor(first.name, shape: shape) }
        // A fused projection: parts stacked by rows, a missing part (a key bias) zero.
        var pieces: [WeightTensor] = []
        for part in 0 ..< parts {
            if let plan = plans.first(where: { $0.split?.part == part }) {
                pieces.append(try tensor(plan.name, shape: shape))
            } else {
                pieces.append(WeightTensor(shape: shape, storage: .float32(Data(count: shape.reduce(1, *) * 4))))
            }
        }
        let fused = [shape[0] * parts] + shape.dropFirst()
        if pieces.allSatisfy({ if case .float16 = $0.storage { return true } else { return false } }) {
            return WeightTensor(shape: fused, storage: .float16(pieces.reduce(into: Data()) { $0.append($1.bytes) }))
        }
        return WeightTensor(shape: fused, storage: .float32(pieces.reduce(into: Data()) { $0.append($1.floats().withUnsafeBytes { Data($0) }) }))
    }

    /// One ggml tensor with the CTranslate2 `shape` (a convolution bias without ggml's trailing 1).
    private func tensor(_ name: String, shape: [Int]) throws -> WeightTensor {
        guard let location = layout.tensors[name] else { throw SpeechError.modelInvalid(path: path, reason: "tensor '\(name)' is missing") }
        let count = shape.reduce(1, *)
        guard location.elements == count else {
            throw SpeechError.modelInvalid(path: path, reason: "tensor '\(name)' has \(location.elements) values, \(count) expected")
        }
        let byteCount = count / location.type.blockElements * location.type.blockBytes
        guard location.offset >= 0, byteCount <= data.count - location.offset else {
            throw SpeechError.modelInvalid(path: path, reason: "tensor '\(name)' runs past the end of the file (changed since it was checked?)")
        }
        let bytes = data[data.startIndex + location.offset ..< data.startIndex + location.offset + byteCount]
        switch location.type {
        case .f32: return WeightTensor(shape: shape, storage: .float32(bytes))
        case .f16: return WeightTensor(shape: shape, storage: .float16(bytes))
        case .q8_0, .q5_0:
            let values = Self.dequantized(bytes, type: location.type)
            return WeightTensor(shape: shape, storage: .float32(values.withUnsafeBytes { Data($0) }))
        default:
            throw SpeechError.modelInvalid(
                path: path, reason: "tensor '\(name)' is stored as \(location.type), which Capforge's runtime does not read (f32, f16, q8_0 and q5_0 it does)")
        }
    }

    /// ggml's q8_0 (a float16 scale and 32 signed bytes a block) and q5_0 (a float16 scale, the
    /// 32 fifth bits, then 16 bytes of low nibbles) as floats.
    static func dequantized(_ bytes: Data, type: GGMLStorageType) -> [Float] {
        let blocks = bytes.count / type.blockBytes
        var values = [Float](repeating: 0, count: blocks * 32)
        bytes.withUnsafeBytes { raw in
            for b in 0 ..< blocks {
                let base = b * type.blockBytes
                let scale = Float(raw.loadUnaligned(fromByteOffset: base, as: Float16.self))
                if type == .q8_0 {
                    for j in 0 ..< 32 { values[b * 32 + j] = scale * Float(Int8(bitPattern: raw[base + 2 + j])) }
                } else {
                    let high = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: base + 2, as: UInt32.self))
                    for j in 0 ..< 16 {
                        let low = raw[base + 6 + j]
                        let x0 = Int32(low & 0x0F) | Int32(((high >> UInt32(j)) << 4) & 0x10)
                        let x1 = Int32(low >> 4) | Int32((high >> UInt32(j + 12)) & 0x10)
                        values[b * 32 + j] = scale * Float(x0 - 16)
                        values[b * 32 + j + 16] = scale * Float(x1 - 16)
                    }
                }
            }
        }
        return values
    }
}
