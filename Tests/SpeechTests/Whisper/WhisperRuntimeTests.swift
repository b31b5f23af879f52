import CapforgeCore
import Foundation
import Testing
import WhisperRuntime
@testable import Speech

/// Capforge's own Whisper runtime (oneDNN products, weights read from the CTranslate2 folder)
/// against libwhisper on the same tiny.en weights. Serialized, with an engine of its own:
/// `decode` drives libwhisper's context without the engine's lock.
@Suite(.serialized) struct WhisperRuntimeTests {
    static let engine = Result { try WhisperEngine(modelPath: try WhisperFixtures.tinyEnModel.get().path) }

    static let model: [WeightPrecision: Result<RuntimeWhisperModel, Error>] = Dictionary(
        uniqueKeysWithValues: WeightPrecision.allCases.map { p in (p, Result { try RuntimeWhisperModel(directory: WhisperFixtures.ct2TinyEn, precision: p) }) })

    /// The tokens of the first window, decoded greedily under Whisper's rules.
    static func firstWindow(_ audio: MonoAudio, _ model: RuntimeWhisperModel) throws -> [Int32] {
        let mel = try LogMelSpectrogram(samples: audio.samples, melCount: model.network.dimensions.melCount)
        var decoding = try model.network.decoding(try model.network.encode(mel.window(at: 0)))
        return try GreedyWindow.decode(&decoding, prompt: try model.vocabulary.prompt(language: "en", translating: false),
                                       rules: model.vocabulary.rules, maxTokens: 220).map(\.id)
    }

    /// On every LibriVox clip, in int8 and in float32, the same text as libwhisper, opening at
    /// the same timestamp. (Measured 2026-12-06: the whole token sequence is identical on 4 of 5
    /// clips in float32 and 3 of 5 in int8; the rest differ only in where a timestamp pair falls.)
    @Test(arguments: WeightPrecision.allCases)
    func firstWindowSaysWhatLibwhisperSays(_ precision: WeightPrecision) throws {
        let model = try #require(Self.model[precision]).get()
        let engine = try Self.engine.get()
        let eot = model.vocabulary.endOfText
        for clip in try WhisperFixtures.librivoxClips() {
            let ours = try Self.firstWindow(clip.audio, model)
            let theirs = try engine.decode(clip.audio.samples, language: "en", task: .transcribe, prompt: nil, redecoding: false,
                                           passesBefore: nil, cancellation: Cancellation(), began: Date()).segments.flatMap(\.tokens)
            let text = ours.filter { $0 < eot }.flatMap(model.vocabulary.bytes(of:))
            #expect(String(decoding: text, as: UTF8.self) == String(decoding: theirs.filter { $0.id < eot }.flatMap(\.bytes), as: UTF8.self),
                    "\(clip.name), \(precision)")
            #expect(ours.first == theirs.first?.id, "\(clip.name), \(precision): opening timestamp")
            #expect(ours.last == eot)
        }
    }

    /// Decoding from an earlier position replaces the cache from there (a beam search goes
    /// back): the scores equal those of a decoding that never went the other way.
    @Test func decodingGoesBackOverItsCache() throws {
        let model = try #require(Self.model[.int8]).get()
        let clip = try WhisperFixtures.librivoxClips()[1]
        let mel = try LogMelSpectrogram(samples: clip.audio.samples, melCount: model.network.dimensions.melCount)
        let encoded = try model.network.encode(mel.window(at: 0))
        let prompt = try model.vocabulary.prompt(language: "en", translating: false)
        let tokens = try Self.firstWindow(clip.audio, model)
        var straight = try model.network.decoding(encoded)
        let expected = try straight.logits(after: prompt + tokens.prefix(4), past: 0)
        var detour = try model.network.decoding(encoded)
        _ = try detour.logits(after: prompt + [tokens[0], 11, 290, 262, 617, 1110], past: 0)
        let again = try detour.logits(after: Array(tokens[1 ..< 4]), past: prompt.count + 1)
        #expect(zip(expected, again).allSatisfy { abs($0 - $1) < 1e-4 })
        #expect(expected.indices.max { expected[$0] < expected[$1] } == again.indices.max { again[$0] < again[$1] })
    }

    @Test func requestsOutsideTheModelAreRefused() throws {
        let model = try #require(Self.model[.int8]).get()
        var decoding = try model.network.decoding(try model.network.encode([Float](repeating: 0, count: 80 * 3000)))
        #expect(throws: RuntimeError.self) { try decoding.logits(after: [60_000], past: 0) }
        #expect(throws: RuntimeError.self) { try decoding.logits(after: [50_257], past: 448) }
        #expect(throws: RuntimeError.self) { try decoding.logits(after: [], past: 0) }
        #expect(throws: RuntimeError.self) { try model.network.encode([1, 2, 3]) }
    }

    /// A tensor whose shape does not fit the model's dimensions is named, not read past its end.
    @Test func aWeightOfTheWrongShapeIsNamed() throws {
        struct Tampered: WeightSource {
            let model: CT2Model
            func weight(_ name: String) throws -> WeightTensor {
                var tensor = try model.weight(name)
                if name == "decoder/layer_0/ffn/linear_1/weight" { tensor.shape = [384, 1535] }
                return tensor
            }
        }
        let (bytes, path) = try CT2WhisperConverter.readModelBinary(WhisperFixtures.ct2TinyEn)
        let model = try CT2Model(data: bytes, path: path)
        let dimensions = WhisperDimensions(melCount: 80, audioContext: 1500, audioState: 384, audioHeads: 6, audioLayers: 4,
                                           textContext: 448, textState: 384, textHeads: 6, textLayers: 4, vocabularySize: 51864)
        #expect(throws: RuntimeError.malformedWeights(name: "decoder/layer_0/ffn/linear_1/weight", reason: "shape [384, 1535], the model's dimensions imply [384, 1536]")) {
            _ = try WhisperNetwork(weights: Tampered(model: model), dimensions: dimensions)
        }
    }
}
