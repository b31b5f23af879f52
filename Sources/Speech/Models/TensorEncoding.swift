import Foundation

/// How an import stores the model's 2-D weight matrices (everything else keeps float16 or
/// float32, as whisper.cpp's own quantizer leaves it). The block formats are ggml's: 32 values
/// share one float16 scale.
public enum WeightEncoding: String, CaseIterable, Sendable {
    case f16
    case q8_0
    case q5_0

    var tensorType: GGMLStorageType {
        switch self {
        case .f16: return .f16
        case .q8_0: return .q8_0
        case .q5_0: return .q5_0
        }
    }

    /// The header's ftype: ggml's file type, plus 1000 × its quantization version (2) for the
    /// block formats, which is how whisper.cpp tells their layout revision.
    var fileType: Int {
        switch self {
        case .f16: return 1
        case .q8_0: return 2007
        case .q5_0: return 2008
        }
    }

    /// The name of a header's ftype, for `models list`: "f16", "q8_0", …
    public static func name(ofFileType fileType: Int) -> String {
        let names = [0: "f32", 1: "f16", 2: "q4_0", 3: "q4_1", 4: "q4_1 (some f16)", 7: "q8_0", 8: "q5_0", 9: "q5_1",
                     10: "q2_k", 11: "q3_k", 12: "q4_k", 13: "q5_k", 14: "q6_k"]
        return names[fileType % 1000] ?? "ftype \(fileType)"
    }
}

/// ggml's reference block quantizers (quantize_row_q8_0_ref, quantize_row_q5_0_ref), so a
/// model quantized here is bit-identical to one quantized by whisper.cpp's tool. Plain loops
/// over buffers: a model has tens of millions of values, and the tests run unoptimised builds.
enum BlockQuantizer {
    static let blockLength = 32

    /// q8_0: per block, d = max|x| / 127 and q = round(x / d).
    static func q8_0(_ values: [Float]) -> Data {
        quantize(values, blockBytes: 34) { x, out in
            var amax: Float = 0
            for v in x { amax = max(amax, abs(v)) }
            let d = amax / 127
            let inverse = Self.inverse(d)
            store(Float16(d), in: out)
            for j in 0..<blockLength { out[2 + j] = UInt8(bitPattern: Int8((x[j] * inverse).rounded())) }
        }
    }

    /// q5_0: per block, d = (the value of largest magnitude) / -16; each value becomes a 5-bit
    /// code, its low nibbles packed two to a byte, its fifth bits gathered in a 32-bit word.
    static func q5_0(_ values: [Float]) -> Data {
        let half = blockLength / 2
        return quantize(values, blockBytes: 22) { x, out in
            var extreme: Float = 0
            for v in x where abs(v) > abs(extreme) { extreme = v }
            let d = extreme / -16
            let inverse = Self.inverse(d)
            store(Float16(d), in: out)
            // x·inverse lies in [-16, 16]; truncating x·inverse + 16.5 is ggml's rounding, and
            // its clamp to 31 is why the extreme's opposite can be off by a whole step.
            func code(_ v: Float) -> UInt32 { UInt32(min(31, Int((v * inverse + 16.5).rounded(.towardZero)))) }
            var high: UInt32 = 0
            for j in 0..<half {
                let (a, b) = (code(x[j]), code(x[j + half]))
                out[6 + j] = UInt8((a & 0x0F) | ((b & 0x0F) << 4))
                high |= (a >> 4) << UInt32(j)
                high |= (b >> 4) << UInt32(j + half)
            }
            for k in 0..<4 { out[2 + k] = UInt8(truncatingIfNeeded: high >> UInt32(8 * k)) }
        }
    }

    /// Runs `block` over each 32 values of `values` and the `blockBytes` it fills.
    private static func quantize(
        _ values: [Float], blockBytes: Int, _ block: (UnsafeBufferPointer<Float>, UnsafeMutableRawBufferPointer) -> Void
    ) -> Data {
        let blocks = values.count / blockLength
        var out = Data(count: blocks * blockBytes)
        values.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBytes { output in
                for i in 0..<blocks {
                    block(UnsafeBufferPointer(rebasing: input[(i * blockLength)..<((i + 1) * blockLength)]),
                          UnsafeMutableRawBufferPointer(rebasing: output[(i * blockBytes)..<((i + 1) * blockBytes)]))
                }
            }
        }
        return out
    }

    /// 1/d, or 0 for a block of zeros; a scale so small that its inverse overflows (only a
    /// float32 source can hold such weights) counts as zeros too, not as a code conversion trap.
    private static func inverse(_ d: Float) -> Float {
        let inverse = 1 / d
        return d != 0 && inverse.isFinite ? inverse : 0
    }

    private static func store(_ half: Float16, in out: UnsafeMutableRawBufferPointer) {
        out[0] = UInt8(truncatingIfNeeded: half.bitPattern)
        out[1] = UInt8(truncatingIfNeeded: half.bitPattern >> 8)
    }
}

extension CT2Model.Variable {
    /// Elements as Float, dequantizing int8 rows with their per-row `scale` (CT2 stores w·scale).
    func floatValues(rowScales: [Float]?, path: String) throws -> [Float] {
        try bytes.withUnsafeBytes { raw -> [Float] in
            switch dtype {
            case .float32:
                return Array(raw.bindMemory(to: Float.self))
            case .float16:
                return raw.bindMemory(to: Float16.self).map(Float.init)
            case .bfloat16:
                return raw.bindMemory(to: UInt16.self).map { Float(bitPattern: UInt32($0) << 16) }
            case .int8:
                guard let rowScales, !rowScales.isEmpty else {
                    throw ModelImportError.malformed(path: path, reason: "an int8 tensor has no weight_scale")
                }
                let rowLength = count / rowScales.count
                return raw.bindMemory(to: Int8.self).enumerated().map { Float($0.element) / rowScales[$0.offset / rowLength] }
            case .int16, .int32:
                throw ModelImportError.unsupported(path: path, reason: "\(dtype) weights are not supported; convert with float16 or int8")
            }
        }
    }

    /// Rows `[part·n/parts, (part+1)·n/parts)` of a row-major tensor, as a tensor of its own.
    func rows(part: Int, of parts: Int) -> CT2Model.Variable {
        let rowCount = shape[0] / parts
        let rowBytes = bytes.count / shape[0]
        let start = bytes.startIndex + part * rowCount * rowBytes
        return CT2Model.Variable(
            shape: [rowCount] + shape.dropFirst(), dtype: dtype, bytes: bytes[start..<start + rowCount * rowBytes])
    }

    /// Raw element bytes in `type`, copying when the storage already matches.
    func encoded(as type: GGMLStorageType, rowScales: [Float]?, path: String) throws -> Data {
        switch (type, dtype) {
        case (.f16, .float16), (.f32, .float32):
            return Data(bytes)
        case (.f16, _):
            let halves = try floatValues(rowScales: rowScales, path: path).map(Float16.init)
            return halves.withUnsafeBytes { Data($0) }
        case (.f32, _):
            return try floatValues(rowScales: rowScales, path: path).withUnsafeBytes { Data($0) }
        case (.q8_0, _), (.q5_0, _):
            // Blocks run along a row: ggml quantizes each row on its own.
            guard let rowLength = shape.last, rowLength % BlockQuantizer.blockLength == 0 else {
                throw ModelImportError.unsupported(
                    path: path, reason: "a \(shape.map(String.init).joined(separator: "×")) weight cannot be stored in \(BlockQuantizer.blockLength)-value blocks; import it as f16")
            }
            let values = try floatValues(rowScales: rowScales, path: path)
            // A NaN or infinite weight would make every value of its block garbage (and the
            // code conversion trap): the model is broken, not quantizable.
            guard values.allSatisfy(\.isFinite) else {
                throw ModelImportError.malformed(path: path, reason: "a weight is not a finite number")
            }
            return type == .q8_0 ? BlockQuantizer.q8_0(values) : BlockQuantizer.q5_0(values)
        default:
            throw ModelImportError.unsupported(path: path, reason: "the importer does not write \(type) tensors")
        }
    }
}
