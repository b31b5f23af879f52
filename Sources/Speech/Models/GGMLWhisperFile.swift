import Foundation
import WhisperRuntime

/// whisper.cpp's legacy ggml model header: magic, then 11 int32 hyper-parameters.
public struct WhisperHyperparameters: Equatable, Sendable {
    public static let magic: UInt32 = 0x6767_6D6C
    /// n_vocab of the English-only models; multilingual ones have 51865 or more.
    public static let englishOnlyVocabularySize = 51864

    public var vocabularySize: Int
    public var audioContext: Int
    public var audioState: Int
    public var audioHeads: Int
    public var audioLayers: Int
    public var textContext: Int
    public var textState: Int
    public var textHeads: Int
    public var textLayers: Int
    public var melCount: Int
    /// 1: float16 weights.
    public var fileType: Int

    public var isMultilingual: Bool { vocabularySize > Self.englishOnlyVocabularySize }

    var fields: [Int] {
        [vocabularySize, audioContext, audioState, audioHeads, audioLayers,
         textContext, textState, textHeads, textLayers, melCount, fileType]
    }

    static let byteCount = 4 + 11 * 4

    /// Reads the header of a ggml file; nil when the bytes are not one.
    init?(header: Data) {
        guard header.count >= Self.byteCount else { return nil }
        let words = (0..<12).map { i in
            header.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)) }
        }
        let v = words.dropFirst().map { Int(Int32(bitPattern: $0)) }
        // Other ggml files share the magic (the Silero VAD model beside the Whisper models);
        // every Whisper model has at least the English-only vocabulary.
        guard words[0] == Self.magic, v[0] >= Self.englishOnlyVocabularySize else { return nil }
        self.init(vocabularySize: v[0], audioContext: v[1], audioState: v[2], audioHeads: v[3], audioLayers: v[4],
                  textContext: v[5], textState: v[6], textHeads: v[7], textLayers: v[8], melCount: v[9], fileType: v[10])
    }

    init(vocabularySize: Int, audioContext: Int, audioState: Int, audioHeads: Int, audioLayers: Int,
         textContext: Int, textState: Int, textHeads: Int, textLayers: Int, melCount: Int, fileType: Int) {
        self.vocabularySize = vocabularySize
        self.audioContext = audioContext
        self.audioState = audioState
        self.audioHeads = audioHeads
        self.audioLayers = audioLayers
        self.textContext = textContext
        self.textState = textState
        self.textHeads = textHeads
        self.textLayers = textLayers
        self.melCount = melCount
        self.fileType = fileType
    }
}

extension WhisperHyperparameters {
    /// The sizes Capforge's own runtime builds the network from.
    var dimensions: WhisperDimensions {
        WhisperDimensions(melCount: melCount, audioContext: audioContext, audioState: audioState, audioHeads: audioHeads, audioLayers: audioLayers,
                          textContext: textContext, textState: textState, textHeads: textHeads, textLayers: textLayers, vocabularySize: vocabularySize)
    }
}

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
