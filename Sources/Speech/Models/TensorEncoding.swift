import Foundation

/// The element types whisper.cpp's legacy ggml loader accepts from our converter.
enum GGMLTensorType: Int32 {
    case float32 = 0
    case float16 = 1
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
    func encoded(as type: GGMLTensorType, rowScales: [Float]?, path: String) throws -> Data {
        switch (type, dtype) {
        case (.float16, .float16), (.float32, .float32):
            return Data(bytes)
        case (.float16, _):
            let halves = try floatValues(rowScales: rowScales, path: path).map(Float16.init)
            return halves.withUnsafeBytes { Data($0) }
        case (.float32, _):
            return try floatValues(rowScales: rowScales, path: path).withUnsafeBytes { Data($0) }
        }
    }
}
