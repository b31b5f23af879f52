import Foundation

/// A CTranslate2 `model.bin` (binary version 6) parsed into named variables that share the
/// file's storage. Every count, length and shape is checked against the bytes left in the file
/// (in checked arithmetic) before it is used, so a crafted header cannot make the parser
/// allocate more than the file holds, or trap.
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

        /// Cannot overflow: the parser accepts a shape only when its product, times the element
        /// width, is the byte count the file holds.
        var count: Int { shape.reduce(1, *) }
    }

    static let supportedBinaryVersion: UInt32 = 6
    /// Far above any Whisper model's (large-v3 has about 1,000 variables and 4-character
    /// to 60-character names, rank 3 at most); bounds what a crafted header can make us hold.
    static let maximumVariables = 20_000
    static let maximumNameBytes = 256
    static let maximumRank = 4

    let spec: String
    private(set) var variables: [String: Variable] = [:]
    let path: String

    init(data: Data, path: String) throws {
        self.path = path
        func malformed(_ reason: String) -> ModelImportError { .malformed(path: path, reason: reason) }
        var reader = LittleEndianReader(data: data, path: path)
        let version = try reader.u32()
        guard version == Self.supportedBinaryVersion else {
            throw ModelImportError.unsupported(
                path: path, reason: "CTranslate2 binary version \(version); only version \(Self.supportedBinaryVersion) (CTranslate2 3.x/4.x) is supported")
        }
        spec = try reader.string(maximumBytes: Self.maximumNameBytes, "the model's spec name")
        _ = try reader.u32()  // spec revision: the tensor names below are what matter
        let count = Int(try reader.u32())
        guard count <= Self.maximumVariables else { throw malformed("it claims \(count) variables (at most \(Self.maximumVariables) expected)") }
        for _ in 0..<count {
            let name = try reader.string(maximumBytes: Self.maximumNameBytes, "a variable name")
            let rank = Int(try reader.u8())
            guard rank <= Self.maximumRank else { throw malformed("variable \(name) has rank \(rank) (at most \(Self.maximumRank) expected)") }
            let shape = try (0..<rank).map { _ in Int(try reader.u32()) }
            let code = try reader.u8()
            guard let dtype = DType(rawValue: code) else { throw malformed("variable \(name) has unknown dtype \(code)") }
            let byteCount = Int(try reader.u32())
            guard Self.byteCount(of: shape, width: dtype.byteWidth) == byteCount else {
                throw malformed("variable \(name) holds \(byteCount) bytes for shape \(shape) of \(dtype)")
            }
            guard variables[name] == nil else { throw malformed("variable \(name) appears twice") }
            variables[name] = Variable(shape: shape, dtype: dtype, bytes: try reader.bytes(byteCount, "variable \(name)"))
        }
        let aliasCount = Int(try reader.u32())
        guard aliasCount <= Self.maximumVariables else { throw malformed("it claims \(aliasCount) aliases (at most \(Self.maximumVariables) expected)") }
        for _ in 0..<aliasCount {
            let alias = try reader.string(maximumBytes: Self.maximumNameBytes, "an alias name")
            let target = try reader.string(maximumBytes: Self.maximumNameBytes, "an alias target")
            if let variable = variables[target] { variables[alias] = variable }
        }
    }

    /// The bytes a tensor of `shape` takes, or nil when that overflows.
    private static func byteCount(of shape: [Int], width: Int) -> Int? {
        var product = width
        for extent in shape {
            let (next, overflow) = product.multipliedReportingOverflow(by: extent)
            if overflow { return nil }
            product = next
        }
        return product
    }

    func variable(_ name: String) throws -> Variable {
        guard let variable = variables[name] else {
            throw ModelImportError.malformed(path: path, reason: "variable \(name) is missing")
        }
        return variable
    }

    /// A whole-number scalar such as `encoder/num_heads`; a float that is not a whole number in
    /// Int's range (NaN, 1e30, 2.5) is an error, not a conversion trap.
    func scalar(_ name: String) throws -> Int {
        let v = try variable(name)
        guard v.count == 1 else { throw ModelImportError.malformed(path: path, reason: "\(name) is not a scalar") }
        let value: Int? = v.bytes.withUnsafeBytes { raw in
            switch v.dtype {
            case .int8: return Int(raw.load(as: Int8.self))
            case .int16: return Int(Int16(littleEndian: raw.loadUnaligned(as: Int16.self)))
            case .int32: return Int(Int32(littleEndian: raw.loadUnaligned(as: Int32.self)))
            case .float32: return Int(exactly: raw.loadUnaligned(as: Float.self))
            case .float16: return Int(exactly: raw.loadUnaligned(as: Float16.self))
            case .bfloat16: return Int(exactly: Float(bitPattern: UInt32(raw.loadUnaligned(as: UInt16.self)) << 16))
            }
        }
        guard let value else { throw ModelImportError.malformed(path: path, reason: "\(name) is not a whole number") }
        return value
    }

    /// How many `<prefix>layer_<n>/` blocks there are (`<prefix>layer_norm` is not a layer).
    /// Each index must be written plainly, below `maximum`, and together they must run from 0
    /// without a gap: a model names only layers it has, so a stray index cannot size the import.
    func layerCount(prefix: String, maximum: Int) throws -> Int {
        var indices = Set<Int>()
        for name in variables.keys where name.hasPrefix(prefix + "layer_") {
            let rest = name.dropFirst(prefix.count + "layer_".count)
            guard let slash = rest.firstIndex(of: "/") else { continue }
            let digits = rest[..<slash]
            guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { continue }
            guard let index = Int(digits), index < maximum else {
                throw ModelImportError.malformed(path: path, reason: "variable \(name) is in layer \(digits); a Whisper model has at most \(maximum) layers")
            }
            guard String(index) == digits else {
                throw ModelImportError.malformed(path: path, reason: "variable \(name) has a layer number with a leading zero")
            }
            indices.insert(index)
        }
        if let gap = (0..<indices.count).first(where: { !indices.contains($0) }) {
            throw ModelImportError.malformed(path: path, reason: "\(prefix)layer_\(gap) is missing, though \(prefix)layer_\(indices.max() ?? 0) is there")
        }
        return indices.count
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

    /// `count` bytes, refused before anything is sliced when fewer are left (checked as a
    /// difference: `offset + count` could overflow).
    mutating func bytes(_ count: Int, _ what: String) throws -> Data {
        guard count >= 0, count <= data.endIndex - offset else {
            throw ModelImportError.malformed(
                path: path, reason: "\(what) runs past the end of the file at byte \(offset - data.startIndex) of \(data.count) (truncated download?)")
        }
        defer { offset += count }
        return data[offset..<offset + count]
    }

    mutating func u8() throws -> UInt8 { try bytes(1, "a header").first! }

    mutating func u16() throws -> UInt16 {
        try bytes(2, "a header").withUnsafeBytes { UInt16(littleEndian: $0.loadUnaligned(as: UInt16.self)) }
    }

    mutating func u32() throws -> UInt32 {
        try bytes(4, "a header").withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
    }

    /// u16 length (NUL included) + bytes; longer than `maximumBytes` is an error, since the
    /// text ends up in messages.
    mutating func string(maximumBytes: Int, _ what: String) throws -> String {
        let length = Int(try u16())
        guard length <= maximumBytes else {
            throw ModelImportError.malformed(path: path, reason: "\(what) is \(length) bytes long (at most \(maximumBytes) expected)")
        }
        let raw = try bytes(length, what)
        return String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}
