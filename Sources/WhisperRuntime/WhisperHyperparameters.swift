import Foundation

/// whisper.cpp's ggml model header: magic, then 11 int32 hyper-parameters. The sizes that make
/// one Whisper model, however it is stored (a CTranslate2 folder's are read off its tensors):
/// the runtime checks every weight against them.
public struct WhisperHyperparameters: Equatable, Sendable {
    public static let magic: UInt32 = 0x6767_6D6C
    /// n_vocab of the English-only models; multilingual ones have 51865 or more.
    public static let englishOnlyVocabularySize = 51864

    public var vocabularySize: Int
    /// Encoder positions (1,500 for 30 s) and width.
    public var audioContext: Int
    public var audioState: Int
    public var audioHeads: Int
    public var audioLayers: Int
    /// Decoder positions (448) and width.
    public var textContext: Int
    public var textState: Int
    public var textHeads: Int
    public var textLayers: Int
    public var melCount: Int
    /// 1: float16 weights.
    public var fileType: Int

    public var isMultilingual: Bool { vocabularySize > Self.englishOnlyVocabularySize }

    package var fields: [Int] {
        [vocabularySize, audioContext, audioState, audioHeads, audioLayers,
         textContext, textState, textHeads, textLayers, melCount, fileType]
    }

    package static let byteCount = 4 + 11 * 4

    /// Reads the header of a ggml file; nil when the bytes are not one.
    package init?(header: Data) {
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

    public init(vocabularySize: Int, audioContext: Int, audioState: Int, audioHeads: Int, audioLayers: Int,
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
