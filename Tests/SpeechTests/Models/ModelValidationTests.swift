import Foundation
import Testing
import WhisperRuntime
@testable import Speech

/// A structurally complete ggml Whisper model with zero weights, as small as the bounds allow.
enum SyntheticModel {
    static let multilingual = WhisperHyperparameters(
        vocabularySize: 51865, audioContext: 16, audioState: 64, audioHeads: 2, audioLayers: 1,
        textContext: 16, textState: 64, textHeads: 2, textLayers: 1, melCount: 80, fileType: 1)

    /// `vocabulary`: the text tokens, as many as the header's kind of model has unless given.
    static func bytes(_ hparams: WhisperHyperparameters, tensors: [TensorPlan]? = nil, vocabulary: [[UInt8]]? = nil) -> Data {
        var file = GGMLWriter()
        file.header(hparams)
        file.melFilters([Float](repeating: 0, count: hparams.melCount * 201), melCount: hparams.melCount)
        file.vocabulary(vocabulary ?? (0..<hparams.textTokenCount).map { [UInt8($0 % 256)] })
        for plan in tensors ?? tensorPlans(encoderLayers: hparams.audioLayers, decoderLayers: hparams.textLayers) {
            let count = hparams.elementCount(ofTensor: plan.name)
            file.tensor(name: plan.name, shape: [count], type: .f16, payload: Data(count: count * 2))
        }
        return file.data
    }
}

@Suite struct ModelValidationTests {
    let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-validate-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    private func problem(of data: Data) throws -> String? {
        let url = folder.appendingPathComponent("ggml-\(UUID().uuidString).bin")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            _ = try WhisperModelFile.validated(at: url)
            return nil
        } catch SpeechError.modelInvalid(_, let reason) {
            return reason
        }
    }

    @Test func completeModelPasses() throws {
        #expect(try problem(of: SyntheticModel.bytes(SyntheticModel.multilingual)) == nil)
    }

    /// The header field libwhisper sizes its context by (n_text_layer, byte offset 36), patched
    /// to 100,000,000: libwhisper aborts the process on it (GGML_ASSERT).
    @Test func lyingLayerCountIsRefused() throws {
        let data = SyntheticModel.bytes(SyntheticModel.multilingual).replacing(at: 36, with: 100_000_000)
        #expect(try problem(of: data)?.contains("n_text_layer = 100000000") == true)
    }

    /// Plausible header fields that disagree with the tensors in the file (n_text_layer at
    /// byte 36, n_text_state at 28).
    @Test func headerThatDisagreesWithTheTensorsIsRefused() throws {
        let data = SyntheticModel.bytes(SyntheticModel.multilingual)
        #expect(try problem(of: data.replacing(at: 36, with: 2))?.contains("missing") == true)
        #expect(try problem(of: data.replacing(at: 28, with: 128))?.contains("values") == true)
    }

    /// The header's kind of model (n_vocab: English-only or multilingual) fixes how many text
    /// tokens come before <|endoftext|>: a vocabulary of another kind, or cut short, decodes to
    /// gibberish, and is refused.
    @Test func vocabularyOfAnotherKindOfModelIsRefused() throws {
        var english = SyntheticModel.multilingual
        english.vocabularySize = WhisperHyperparameters.englishOnlyVocabularySize
        let text = (0..<50_256).map { [UInt8($0 % 256)] }
        let endOfText = Array("<|endoftext|>".utf8)
        #expect(try problem(of: SyntheticModel.bytes(english, vocabulary: text)) == nil)
        #expect(try problem(of: SyntheticModel.bytes(english, vocabulary: text + [endOfText, Array("<|startoftranscript|>".utf8)])) == nil)
        let cases: [(WhisperHyperparameters, [[UInt8]], String)] = [
            (SyntheticModel.multilingual, text, "its vocabulary has 50256 tokens, where a multilingual model (n_vocab 51865 in its header) has 50257 before <|endoftext|>"),
            (SyntheticModel.multilingual, text + [endOfText], "its vocabulary has <|endoftext|> at token 50256, where a multilingual model"),
            (english, text + [[0x41]], "its vocabulary has a text token at 50256, where an English-only model (n_vocab 51864 in its header) has <|endoftext|> at 50256"),
            (english, Array(text.prefix(100)), "its vocabulary has 100 tokens, where an English-only model"),
        ]
        for (hparams, vocabulary, reason) in cases {
            let said = try problem(of: SyntheticModel.bytes(hparams, vocabulary: vocabulary))
            #expect(said?.hasPrefix(reason) == true && said?.contains("capforge models import DIR") == true, "\(said ?? "accepted")")
        }
        var unknown = SyntheticModel.multilingual
        unknown.vocabularySize = 51_900
        #expect(try problem(of: SyntheticModel.bytes(unknown))?.contains("n_vocab = 51900, expected 51864–51866") == true)
    }

    /// A NaN or an infinity among the weights is found by name, in every storage type the file may use.
    @Test func weightsThatAreNotNumbersAreFoundByTensor() throws {
        let url = folder.appendingPathComponent("ggml-nan.bin")
        defer { try? FileManager.default.removeItem(at: url) }
        var data = SyntheticModel.bytes(SyntheticModel.multilingual)
        try data.write(to: url)
        let layout = try #require(try WhisperModelFile.layout(at: url, keepingVocabulary: false))
        try WhisperModelFile.checkWeights(at: url, layout: layout)
        let (name, location) = try #require(layout.tensors.first { $0.key == "decoder.token_embedding.weight" })
        data.replaceSubrange((location.offset + 10)..<(location.offset + 12), with: [0x00, 0x7C])
        try data.write(to: url)
        #expect(throws: SpeechError.self) { try WhisperModelFile.checkWeights(at: url, layout: layout) }
        do {
            try WhisperModelFile.checkWeights(at: url, layout: layout)
        } catch SpeechError.modelInvalid(_, let reason) {
            #expect(reason.contains("tensor '\(name)', value 5"), "\(reason)")
        }
    }

    @Test func truncatedModelIsRefusedAtEveryCut() throws {
        let data = SyntheticModel.bytes(SyntheticModel.multilingual)
        #expect(try problem(of: data.prefix(2)) == "it is not a ggml Whisper model")
        for cut in [10, 48, 60, 70_000, data.count / 2, data.count - 1] {
            #expect(try problem(of: data.prefix(cut))?.contains("truncated") == true, "cut at \(cut)")
        }
    }

    /// A valid header over random bytes: libwhisper grew by about 0.8 GB/s on this until killed.
    @Test func randomBodyIsRefused() throws {
        var generator = SystemRandomNumberGenerator()
        let header = SyntheticModel.bytes(SyntheticModel.multilingual).prefix(48)
        for _ in 0..<20 {
            let body = Data((0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            #expect(try problem(of: header + body) != nil)
        }
    }

    @Test func unexpectedAndDuplicateTensorsAreRefused() throws {
        let plans = tensorPlans(encoderLayers: 1, decoderLayers: 1)
        #expect(try problem(of: SyntheticModel.bytes(SyntheticModel.multilingual, tensors: plans + [plans[0]]))?.contains("twice") == true)
        var renamed = plans
        renamed[3].name = "encoder.blocks.7.attn.query.weight"
        #expect(try problem(of: SyntheticModel.bytes(SyntheticModel.multilingual, tensors: renamed))?.contains("unexpected") == true)
    }

    @Test func fifoIsRefusedWithoutBlocking() throws {
        let fifo = folder.appendingPathComponent("ggml-fifo.bin")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: SpeechError.modelInvalid(path: fifo.path, reason: "it is not a regular file")) {
            _ = try WhisperModelFile.validated(at: fifo)
        }
    }

    /// Other ggml files (the Silero VAD model) are not Whisper models, and not broken ones.
    @Test func otherGGMLFilesAreNotWhisperModels() throws {
        var file = GGMLWriter()
        file.uint32(WhisperHyperparameters.magic)
        (0..<11).forEach { _ in file.int32(7) }
        let url = folder.appendingPathComponent("ggml-silero.bin")
        try file.data.write(to: url)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try WhisperModelFile.validated(at: url) == nil)
    }
}

private extension Data {
    /// This data with the little-endian Int32 at `offset` replaced.
    func replacing(at offset: Int, with value: Int32) -> Data {
        var copy = self
        copy.replaceSubrange(offset..<offset + 4, with: Swift.withUnsafeBytes(of: value.littleEndian, Array.init))
        return copy
    }
}
