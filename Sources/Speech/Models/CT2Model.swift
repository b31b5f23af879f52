import Foundation

/// A CTranslate2 `model.bin` (binary version 6) parsed into named variables that share the
/// file's storage.
struct CT2Model {
    enum DType: UInt8 {
        case float32 = 0, int8 = 1, int16 = 2, int32 = 3, float16 = 4, bfloat16 = 5

        var byteWidth: Int {
            switch self {
            case .int8: return 1
            case .int16, .float16, .bfloat16: return 2
            case .float32, .int32: return 4
            }
        }
    }

    struct Variable {
        var shape: [Int]
        var dtype: DType
        var bytes: Data

        var count: Int { shape.reduce(1, *) }
    }

    static let supportedBinaryVersion: UInt32 = 6

    let spec: String
    private(set) var variables: [String: Variable] = [:]
    let path: String

    init(data: Data, path: String) throws {
        self.path = path
        var reader = LittleEndianReader(data: data, path: path)
        let version = try reader.u32()
        guard version == Self.supportedBinaryVersion else {
            throw ModelImportError.unsupported(
                path: path, reason: "CTranslate2 binary version \(version); only version \(Self.supportedBinaryVersion) (CTranslate2 3.x/4.x) is supported")
        }
        spec = try reader.string()
        _ = try reader.u32()  // spec revision: the tensor names below are what matter
        let count = try reader.u32()
        for _ in 0..<count {
            let name = try reader.string()
            let rank = Int(try reader.u8())
            let shape = try (0..<rank).map { _ in Int(try reader.u32()) }
            let code = try reader.u8()
            guard let dtype = DType(rawValue: code) else {
                throw ModelImportError.malformed(path: path, reason: "variable \(name) has unknown dtype \(code)")
            }
            let byteCount = Int(try reader.u32())
            guard byteCount == shape.reduce(1, *) * dtype.byteWidth else {
                throw ModelImportError.malformed(path: path, reason: "variable \(name) holds \(byteCount) bytes for shape \(shape)")
            }
            variables[name] = Variable(shape: shape, dtype: dtype, bytes: try reader.bytes(byteCount))
        }
        let aliasCount = try reader.u32()
        for _ in 0..<aliasCount {
            let alias = try reader.string()
            let target = try reader.string()
            if let variable = variables[target] { variables[alias] = variable }
        }
    }

    func variable(_ name: String) throws -> Variable {
        guard let variable = variables[name] else {
            throw ModelImportError.malformed(path: path, reason: "variable \(name) is missing")
        }
        return variable
    }

    /// An integer scalar such as `encoder/num_heads`.
    func scalar(_ name: String) throws -> Int {
        let v = try variable(name)
        guard v.count == 1 else { throw ModelImportError.malformed(path: path, reason: "\(name) is not a scalar") }
        return v.bytes.withUnsafeBytes { raw -> Int in
            switch v.dtype {
            case .int8: return Int(raw.load(as: Int8.self))
            case .int16: return Int(raw.loadUnaligned(as: Int16.self))
            case .int32: return Int(raw.loadUnaligned(as: Int32.self))
            case .float32: return Int(raw.loadUnaligned(as: Float.self))
            case .float16: return Int(Float(raw.loadUnaligned(as: Float16.self)))
            case .bfloat16: return Int(Float(bitPattern: UInt32(raw.loadUnaligned(as: UInt16.self)) << 16))
            }
        }
    }

    /// Indices `n` of the `<prefix>layer_<n>/` blocks; `<prefix>layer_norm` is not a layer.
    func layerCount(prefix: String) -> Int {
        let indices = variables.keys.compactMap { name -> Int? in
            guard name.hasPrefix(prefix + "layer_") else { return nil }
            let rest = name.dropFirst(prefix.count + "layer_".count)
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            return Int(rest[..<slash])
        }
        return (indices.max() ?? -1) + 1
    }
}

/// Sequential little-endian reads with bounds checks that name the file.
struct LittleEndianReader {
    let data: Data
    let path: String
    private var offset: Int

    init(data: Data, path: String) {
        self.data = data
        self.path = path
        self.offset = data.startIndex
    }

    mutating func bytes(_ count: Int) throws -> Data {
        guard count >= 0, offset + count <= data.endIndex else {
            throw ModelImportError.malformed(path: path, reason: "file ends early (truncated download?)")
        }
        defer { offset += count }
        return data[offset..<offset + count]
    }

    mutating func u8() throws -> UInt8 { try bytes(1).first! }

    mutating func u16() throws -> UInt16 {
        try bytes(2).withUnsafeBytes { UInt16(littleEndian: $0.loadUnaligned(as: UInt16.self)) }
    }

    mutating func u32() throws -> UInt32 {
        try bytes(4).withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
    }

    /// u16 length (NUL included) + bytes.
    mutating func string() throws -> String {
        let raw = try bytes(Int(try u16()))
        return String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}
