import CapforgeCore
import Foundation
import WhisperRuntime

/// Checks a ggml Whisper model completely before libwhisper sees it. libwhisper sizes its
/// allocations from the header and the section counts it reads, and aborts the process (or
/// grows without bound) when they lie; here every count is bounded, every section must fit in
/// the file, the vocabulary must be the one the header's kind of model has (English-only or
/// multilingual: a mismatch decodes to gibberish), and every tensor must be the one the header
/// implies, in name and size. Its weights' values are checked apart (`checkWeights`): that
/// reads the whole file.
enum WhisperModelFile {
    /// The hyper-parameters of a model that passed every check; nil for a ggml file of another
    /// kind (the Silero VAD model sits beside the Whisper models).
    static func validated(at url: URL) throws -> WhisperHyperparameters? {
        try layout(at: url, keepingVocabulary: false)?.hyperparameters
    }

    /// Where each part of a checked model lies, for a reader of its weights.
    struct Layout {
        var hyperparameters: WhisperHyperparameters
        /// The text tokens' bytes (empty unless asked for).
        var vocabulary: [[UInt8]]
        /// By ggml tensor name: its element type, value count and byte offset in the file.
        var tensors: [String: (type: GGMLStorageType, elements: Int, offset: Int)]
    }

    /// The model's layout after every check `validated(at:)` makes; nil for a ggml file of
    /// another kind.
    static func layout(at url: URL, keepingVocabulary: Bool) throws -> Layout? {
        let reader = try ModelReader(url)
        func broken(_ reason: String) -> SpeechError { .modelInvalid(path: url.path, reason: reason) }

        // A file too short for the magic is no ggml file at all, not a truncated one.
        guard (try? reader.int32("the header")) == Int(Int32(bitPattern: WhisperHyperparameters.magic)) else {
            throw broken("it is not a ggml Whisper model")
        }
        let header = withUnsafeBytes(of: WhisperHyperparameters.magic.littleEndian, { Data($0) })
            + (try reader.bytes(WhisperHyperparameters.byteCount - 4, "the header"))
        guard let hparams = WhisperHyperparameters(header: header) else { return nil }
        if let problem = hparams.implausibility { throw broken("its header is implausible (\(problem))") }

        let melCount = try reader.int32("the mel filter count")
        let fftBins = try reader.int32("the mel filter size")
        guard melCount == hparams.melCount, (1...1024).contains(fftBins) else {
            throw broken("its mel filters (\(melCount)×\(fftBins)) do not match its header (\(hparams.melCount) mel bands)")
        }
        try reader.skip(melCount * fftBins * 4, "the mel filters")

        let tokenCount = try reader.int32("the vocabulary size")
        let textTokens = hparams.textTokenCount
        let kind = "\(hparams.isMultilingual ? "a multilingual" : "an English-only") model (n_vocab \(hparams.vocabularySize) in its header)"
        guard (textTokens...hparams.vocabularySize).contains(tokenCount) else {
            throw broken(tokenCount < textTokens
                ? "its vocabulary has \(tokenCount) tokens, where \(kind) has \(textTokens) before <|endoftext|>: the vocabulary is cut short "
                    + "or is another kind of model's; \(Self.remedy)"
                : "its vocabulary has \(tokenCount) tokens, more than the \(hparams.vocabularySize) its header says; \(Self.remedy)")
        }
        var vocabulary: [[UInt8]] = []
        for id in 0..<tokenCount {
            let length = try reader.int32("a vocabulary token")
            guard (0...1024).contains(length) else { throw broken("a vocabulary token claims \(length) bytes") }
            // Only <|endoftext|> tells an English-only vocabulary of a converter that lists the
            // special tokens (50,257 tokens and more) from a multilingual one: where the text
            // tokens end, it must be there, and nowhere else.
            let token: Data? = keepingVocabulary || length == Self.endOfText.count || id == textTokens ? try reader.bytes(length, "the vocabulary") : nil
            if token == nil { try reader.skip(length, "the vocabulary") }
            if let token, token.elementsEqual(Self.endOfText.utf8) != (id == textTokens) {
                throw broken((id == textTokens ? "its vocabulary has a text token at \(id)" : "its vocabulary has <|endoftext|> at token \(id)")
                    + ", where \(kind) has <|endoftext|> at \(textTokens): the vocabulary is another kind of model's; \(Self.remedy)")
            }
            if keepingVocabulary, let token { vocabulary.append(Array(token)) }
        }
        var tensors: [String: (type: GGMLStorageType, elements: Int, offset: Int)] = [:]

        let expected = Dictionary(uniqueKeysWithValues: tensorPlans(encoderLayers: hparams.audioLayers, decoderLayers: hparams.textLayers)
            .map { ($0.name, hparams.elementCount(ofTensor: $0.name)) })
        var seen = Set<String>()
        while !reader.atEnd {
            let dimensions = try reader.int32("a tensor header")
            let nameLength = try reader.int32("a tensor header")
            let rawType = try reader.int32("a tensor header")
            guard (1...4).contains(dimensions), (1...128).contains(nameLength) else {
                throw broken("a tensor header is corrupt (\(dimensions) dimensions, \(nameLength)-byte name)")
            }
            var elements = 1
            for _ in 0..<dimensions {
                let extent = try reader.int32("a tensor shape")
                guard extent > 0 else { throw broken("a tensor has a dimension of \(extent)") }
                let (product, overflow) = elements.multipliedReportingOverflow(by: extent)
                guard !overflow else { throw broken("a tensor's shape overflows") }
                elements = product
            }
            let name = String(decoding: try reader.bytes(nameLength, "a tensor name"), as: UTF8.self)
            guard let wanted = expected[name] else { throw broken("it has an unexpected tensor '\(name)'") }
            guard elements == wanted else { throw broken("tensor '\(name)' has \(elements) values, its header implies \(wanted)") }
            guard seen.insert(name).inserted else { throw broken("tensor '\(name)' appears twice") }
            guard let type = GGMLStorageType(rawValue: rawType), elements % type.blockElements == 0 else {
                throw broken("tensor '\(name)' has an unknown or misaligned element type \(rawType)")
            }
            tensors[name] = (type, elements, reader.position)
            try reader.skip(elements / type.blockElements * type.blockBytes, "tensor '\(name)'")
        }
        if let missing = expected.keys.sorted().first(where: { !seen.contains($0) }) {
            throw broken("it is incomplete: tensor '\(missing)' is missing (\(expected.count - seen.count) of \(expected.count) absent)")
        }
        return Layout(hyperparameters: hparams, vocabulary: vocabulary, tensors: tensors)
    }

    static let endOfText = "<|endoftext|>"
    /// What to do about a model file that is not what its header says.
    static let remedy = "import it again from its CTranslate2 folder ('capforge models import DIR') or install it again ('capforge models install NAME')"

    /// Throws, naming the tensor, when a weight of the model at `url` (checked by `layout`) is
    /// not a finite number: a NaN or an infinity makes every window's words gibberish (or
    /// nothing), in libwhisper and in Capforge's runtime alike. Reads the whole file; block
    /// formats are checked by their scales, the k-quants (which the runtime does not read) not.
    static func checkWeights(at url: URL, layout: Layout) throws {
        let data = try Data(contentsOf: url, options: .alwaysMapped)
        for (name, location) in layout.tensors.sorted(by: { $0.value.offset < $1.value.offset }) {
            let bytes = location.elements / location.type.blockElements * location.type.blockBytes
            guard location.offset + bytes <= data.count else {
                throw SpeechError.modelInvalid(path: url.path, reason: "tensor '\(name)' runs past the end of the file (changed since it was checked?)")
            }
            let stored = data[data.startIndex + location.offset ..< data.startIndex + location.offset + bytes]
            let scales: Data
            switch location.type {
            case .f32:
                scales = Data()
                if let index = WeightTensor(shape: [location.elements], storage: .float32(stored)).firstNonFinite() {
                    throw nonFinite(url, name, "value \(index)")
                }
            case .f16:
                scales = Data()
                if let index = WeightTensor(shape: [location.elements], storage: .float16(stored)).firstNonFinite() {
                    throw nonFinite(url, name, "value \(index)")
                }
            case .q4_0, .q5_0, .q8_0:
                // Each block starts with its float16 scale.
                scales = Data(stride(from: stored.startIndex, to: stored.endIndex, by: location.type.blockBytes).flatMap { stored[$0 ..< $0 + 2] })
            case .q4_1, .q5_1:
                // A float16 scale and a float16 minimum.
                scales = Data(stride(from: stored.startIndex, to: stored.endIndex, by: location.type.blockBytes).flatMap { stored[$0 ..< $0 + 4] })
            case .q2_k, .q3_k, .q4_k, .q5_k, .q6_k:
                scales = Data()
            }
            if let index = WeightTensor(shape: [scales.count / 2], storage: .float16(scales)).firstNonFinite() {
                throw nonFinite(url, name, "the scale of block \(index / (location.type == .q4_1 || location.type == .q5_1 ? 2 : 1))")
            }
        }
    }

    private static func nonFinite(_ url: URL, _ tensor: String, _ which: String) -> SpeechError {
        .modelInvalid(path: url.path, reason: "its weights hold a value that is not a number (NaN or infinite): tensor '\(tensor)', \(which); "
            + "the file is damaged, and every window would decode to gibberish; \(remedy)")
    }
}

extension WhisperHyperparameters {
    /// Layers in the encoder or the decoder: large-v3 has 32.
    static let maximumLayers = 64
    /// Languages a multilingual model has tokens for: large-v3 has 100, the others 99.
    static let mostLanguages = 100

    /// The byte-level text tokens before <|endoftext|>: GPT-2's 50,256, and one more in the
    /// multilingual vocabulary.
    var textTokenCount: Int { isMultilingual ? 50_257 : 50_256 }

    /// Why no real Whisper model could have this header, or nil. The bounds enclose every
    /// published Whisper size (tiny to large-v3, distil) with room to spare.
    var implausibility: String? {
        let checks: [(String, Int, ClosedRange<Int>)] = [
            // English-only, or multilingual with up to `mostLanguages` language tokens (51,765
            // and the end of text before them, as `WhisperLanguages` counts).
            ("n_vocab", vocabularySize, Self.englishOnlyVocabularySize...51_766 + Self.mostLanguages),
            ("n_audio_ctx", audioContext, 1...1500), ("n_audio_state", audioState, 64...2048),
            ("n_audio_head", audioHeads, 1...64), ("n_audio_layer", audioLayers, 1...Self.maximumLayers),
            ("n_text_ctx", textContext, 1...1024), ("n_text_state", textState, 64...2048),
            ("n_text_head", textHeads, 1...64), ("n_text_layer", textLayers, 1...Self.maximumLayers),
            ("n_mels", melCount, 1...256), ("ftype", fileType % 1000, 0...15),
        ]
        if let (name, value, range) = checks.first(where: { !$0.2.contains($0.1) }) {
            return "\(name) = \(value), expected \(range.lowerBound)–\(range.upperBound)"
        }
        if audioState % audioHeads != 0 || textState % textHeads != 0 { return "the state size is not a multiple of the head count" }
        return nil
    }

    /// How many values the tensor called `name` has in a model with this header (whisper.cpp's layout).
    func elementCount(ofTensor name: String) -> Int {
        shape(ofTensor: name).reduce(1, *)
    }

    /// The row-major (PyTorch's, CTranslate2's) shape of the tensor called `name`, the
    /// convolution biases without ggml's trailing 1.
    func shape(ofTensor name: String) -> [Int] {
        let state = name.hasPrefix("encoder.") ? audioState : textState
        switch name {
        case "encoder.positional_embedding": return [audioContext, audioState]
        case "encoder.conv1.weight": return [audioState, melCount, 3]
        case "encoder.conv2.weight": return [audioState, audioState, 3]
        case "decoder.positional_embedding": return [textContext, textState]
        case "decoder.token_embedding.weight": return [vocabularySize, textState]
        default:
            if name.hasSuffix("mlp.0.weight") { return [4 * state, state] }
            if name.hasSuffix("mlp.2.weight") { return [state, 4 * state] }
            if name.hasSuffix("mlp.0.bias") { return [4 * state] }
            if name.hasSuffix(".weight") && (name.contains(".attn.") || name.contains(".cross_attn.")) { return [state, state] }
            return [state]
        }
    }
}

/// The element encodings a ggml Whisper file may use (ggml's type codes), with their block
/// sizes: the validator reads them, the importer writes f32, f16, q8_0 and q5_0.
enum GGMLStorageType: Int {
    case f32 = 0, f16 = 1, q4_0 = 2, q4_1 = 3, q5_0 = 6, q5_1 = 7, q8_0 = 8
    case q2_k = 10, q3_k = 11, q4_k = 12, q5_k = 13, q6_k = 14

    var blockElements: Int {
        switch self {
        case .f32, .f16: return 1
        case .q4_0, .q4_1, .q5_0, .q5_1, .q8_0: return 32
        case .q2_k, .q3_k, .q4_k, .q5_k, .q6_k: return 256
        }
    }

    var blockBytes: Int {
        switch self {
        case .f32: return 4
        case .f16: return 2
        case .q4_0: return 18
        case .q4_1: return 20
        case .q5_0: return 22
        case .q5_1: return 24
        case .q8_0: return 34
        case .q2_k: return 84
        case .q3_k: return 110
        case .q4_k: return 144
        case .q5_k: return 176
        case .q6_k: return 210
        }
    }
}
