import CapforgeCore
import Foundation
import Testing
import TestSupport
import WhisperRuntime
@testable import Speech

/// Capforge's own Whisper runtime (oneDNN products, weights read from the CTranslate2 folder)
/// against libwhisper on the same tiny.en weights. Serialized, with an engine of its own:
/// `decode` drives libwhisper's context without the engine's lock.
@Suite(.serialized) struct WhisperRuntimeTests {
    static let engine = Result { try WhisperEngine(modelPath: try WhisperFixtures.tinyEnModel.get().path) }

    static let model: [WeightPrecision: Result<RuntimeWhisperModel, Error>] = Dictionary(
        uniqueKeysWithValues: WeightPrecision.allCases.map { p in (p, Result { try RuntimeWhisperModel(contentsOf: WhisperFixtures.ct2TinyEn, precision: p) }) })

    /// The tokens of the first window, decoded greedily under Whisper's rules.
    static func firstWindow(_ audio: MonoAudio, _ model: RuntimeWhisperModel) throws -> [Int32] {
        let mel = try LogMelSpectrogram(samples: audio.samples, melCount: model.network.dimensions.melCount)
        var decoding = try model.network.decoding(try model.network.encode(mel.window(at: 0)))
        return try RuntimeTranscriber(model: model).greedy(&decoding, prompt: try model.vocabulary.prompt(language: "en", translating: false)).map(\.id)
    }

    /// On every LibriVox clip the same text as libwhisper, opening at the same timestamp: in
    /// float32 word for word, in int8 within two words a clip. (Measured 2026-12-06 on AVX-512:
    /// the whole token sequence identical on 4 of 5 clips in float32 and 3 of 5 in int8, the rest
    /// differing only in where a timestamp pair falls. Without VNNI the weights keep 7 bits
    /// (`Linear.weightLevels`), and int8 wrote "cold hearted" for "coldhearted" on an AVX2 CPU.)
    @Test(arguments: WeightPrecision.allCases)
    func firstWindowSaysWhatLibwhisperSays(_ precision: WeightPrecision) throws {
        let model = try #require(Self.model[precision]).get()
        let engine = try Self.engine.get()
        let eot = model.vocabulary.endOfText
        for clip in try WhisperFixtures.librivoxClips() {
            let ours = try Self.firstWindow(clip.audio, model)
            let theirs = try engine.backend.decode(clip.audio.samples, language: .english, task: .transcribe, prompt: nil, redecoding: false,
                                                   passesBefore: nil, cancellation: Cancellation()).segments.flatMap(\.tokens)
            let text = String(decoding: ours.filter { $0 < eot }.flatMap(model.vocabulary.bytes(of:)), as: UTF8.self)
            let theirText = String(decoding: theirs.filter { $0.id < eot }.flatMap(\.bytes), as: UTF8.self)
            #expect(precision == .float32 ? text == theirText : WER.errors(reference: theirText, hypothesis: text).edits <= 2,
                    "\(clip.name), \(precision): \(text) against \(theirText)")
            #expect(ours.first == theirs.first?.id, "\(clip.name), \(precision): opening timestamp")
            #expect(ours.last == eot)
        }
    }

    /// Decoding from an earlier position replaces the cache from there (a beam search goes
    /// back): the scores equal those of a decoding that never went the other way (to float
    /// rounding: oneDNN may sum a product of 3 rows in another order than one of 8).
    @Test(arguments: WeightPrecision.allCases) func decodingGoesBackOverItsCache(_ precision: WeightPrecision) throws {
        let model = try #require(Self.model[precision]).get()
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
        let largest = zip(expected, again).map { abs($0 - $1) }.max() ?? .infinity
        #expect(largest < 1e-3, "\(largest)")
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
        let dimensions = WhisperHyperparameters(vocabularySize: 51864, audioContext: 1500, audioState: 384, audioHeads: 6, audioLayers: 4,
                                                textContext: 448, textState: 384, textHeads: 6, textLayers: 4, melCount: 80, fileType: 1)
        #expect(throws: RuntimeError.malformedWeights(name: "decoder/layer_0/ffn/linear_1/weight", reason: "shape [384, 1535], the model's dimensions imply [384, 1536]")) {
            _ = try WhisperNetwork(weights: Tampered(model: model), dimensions: dimensions)
        }
        /// A NaN in the weights (a lying model) is refused by name, not carried into every score
        /// or trapped on when quantized.
        struct Poisoned: WeightSource {
            let model: CT2Model
            func weight(_ name: String) throws -> WeightTensor {
                var tensor = try model.weight(name)
                if name == "encoder/layer_1/ffn/linear_0/weight", case .float16(var data) = tensor.storage {
                    data.replaceSubrange(data.startIndex + 10 ..< data.startIndex + 12, with: [0x00, 0x7E])
                    tensor.storage = .float16(data)
                }
                return tensor
            }
        }
        #expect(throws: RuntimeError.malformedWeights(name: "encoder/layer_1/ffn/linear_0/weight", reason: "value 5 is not a finite number")) {
            _ = try WhisperNetwork(weights: Poisoned(model: model), dimensions: dimensions)
        }
    }
}

extension WhisperRuntimeTests {
    static let runtimeEngine = Result { try WhisperEngine(runtimeModel: WhisperFixtures.ct2TinyEn) }

    /// Through WhisperEngine (loop repair, no-speech filter, word assembly as for libwhisper):
    /// the LibriVox clips within 10 % WER, every word timed inside its clip and in order, and
    /// within two words of libwhisper's engine on each clip (the same words on AVX-512; int8
    /// without VNNI wrote "cold hearted" for "coldhearted").
    @Test func theEngineOnTheRuntimeHearsTheLibriVoxClips() throws {
        let runtime = try Self.runtimeEngine.get()
        let library = try Self.engine.get()
        var edits = 0, total = 0
        for clip in try WhisperFixtures.librivoxClips() {
            let result = try runtime.transcribeDetailed(clip.audio, language: .english, cancellation: Cancellation())
            let hypothesis = result.words.map(\.text).joined(separator: " ")
            let wer = WER.errors(reference: clip.reference, hypothesis: hypothesis)
            edits += wer.edits
            total += wer.words
            #expect(result.words.allSatisfy { $0.start >= 0 && $0.end <= clip.audio.endTime && $0.start <= $0.end })
            #expect(zip(result.words, result.words.dropFirst()).allSatisfy { $0.start <= $1.start })
            #expect(result.words.allSatisfy { $0.evidence != nil && (0 ... 1).contains($0.confidence) })
            let theirs = try library.transcribeDetailed(clip.audio, language: .english, cancellation: Cancellation()).words.map(\.text)
            #expect(WER.errors(reference: theirs.joined(separator: " "), hypothesis: hypothesis).edits <= 2, "\(clip.name): \(hypothesis)")
        }
        #expect(Double(edits) / Double(total) <= 0.10, "\(edits)/\(total)")
    }

    /// The five clips joined with a second of silence between them (29.7 s, one window, five
    /// sentences): each word, given to the clip whose span its start is nearest, must be that
    /// clip's (within 20 % WER a clip), and no word may start more than a second outside every
    /// clip. (The network's timestamps are CTranslate2's, which end these segments up to 1.3 s
    /// later than libwhisper's; token timing pulls words back to the sound.)
    @Test func sentencesOfJoinedClipsKeepTheirPlaces() throws {
        let clips = try WhisperFixtures.librivoxClips()
        var samples: [Float] = []
        var spans: [ClosedRange<Double>] = []
        for clip in clips {
            let start = Double(samples.count) / Double(MonoAudio.sampleRate)
            samples += clip.audio.samples
            spans.append(start ... Double(samples.count) / Double(MonoAudio.sampleRate))
            samples += [Float](repeating: 0, count: MonoAudio.sampleRate)
        }
        let words = try Self.runtimeEngine.get().transcribeDetailed(MonoAudio(samples: samples), language: .english, cancellation: Cancellation()).words
        var heard = Array(repeating: [String](), count: clips.count)
        for word in words {
            let distances = spans.map { max(0, $0.lowerBound - word.start, word.start - $0.upperBound) }
            let nearest = distances.indices.min { distances[$0] < distances[$1] }!
            #expect(distances[nearest] <= 1, "\(word.text) at \(word.start) s")
            heard[nearest].append(word.text)
        }
        for (clip, words) in zip(clips, heard) {
            let wer = WER.errors(reference: clip.reference, hypothesis: words.joined(separator: " "))
            #expect(Double(wer.edits) <= 0.2 * Double(wer.words), "\(clip.name): \(words)")
        }
    }

    /// Two windows at once (what the chunked transcriber does with `windowsAtOnce`), each thread
    /// given its share of the cores, are heard as each is alone on such a thread: a decoding
    /// keeps its state to its call. The five clips, each heard beside the next.
    @Test func windowsHeardSideBySideAreHeardAsEachAlone() throws {
        let engine = try WhisperEngine(runtimeModel: WhisperFixtures.ct2TinyEn, options: WhisperOptions(threads: 2))
        #expect(engine.windowsAtOnce == 2)
        #expect(try WhisperEngine(runtimeModel: WhisperFixtures.ct2TinyEn, options: WhisperOptions(threads: 1)).windowsAtOnce == 1)
        #expect(try Self.engine.get().windowsAtOnce == 1, "libwhisper's context hears one window at a time")
        let clips = try WhisperFixtures.librivoxClips()
        /// `work` on threads of their own, each with its share of the cores, side by side.
        func sideBySide<T: Sendable>(_ work: [@Sendable () throws -> T]) throws -> [T] {
            let running = work.map { body in BackgroundWork(under: Cancellation(), prepare: { engine.shareCores(among: 2) }) { _ in try body() } }
            return try running.map { try $0.value() }
        }
        func heard(_ clip: WhisperFixtures.Clip) -> @Sendable () throws -> [Word] {
            let audio = clip.audio
            return { try engine.transcribeDetailed(audio, language: .english, cancellation: Cancellation()).words }
        }
        let alone = try clips.map { try sideBySide([heard($0)])[0] }
        for i in clips.indices {
            let j = (i + 1) % clips.count
            let pair = try sideBySide([heard(clips[i]), heard(clips[j])])
            #expect(pair[0] == alone[i], "\(clips[i].name) beside \(clips[j].name)")
            #expect(pair[1] == alone[j], "\(clips[j].name) beside \(clips[i].name)")
        }
        #expect(alone.allSatisfy { !$0.isEmpty })
    }

    /// An installed ggml model (what `--model` names) runs as its CTranslate2 folder does: the
    /// same f16 weights give the same int8 network, word for word and time for time; q8_0
    /// weights, expanded and quantized again per row, stay within the clips' WER bound.
    @Test func anInstalledModelRunsAsItsCTranslate2Folder() throws {
        let folder = try Self.runtimeEngine.get()
        let file = try WhisperEngine(runtimeModel: try WhisperFixtures.tinyEnModel.get())
        let quantized = try WhisperEngine(runtimeModel: try WhisperFixtures.tinyEnQ8Model.get())
        #expect(file.identity.model == "tiny.en")
        var edits = 0, total = 0
        for clip in try WhisperFixtures.librivoxClips() {
            let a = try folder.transcribeDetailed(clip.audio, language: .english, cancellation: Cancellation()).words
            let b = try file.transcribeDetailed(clip.audio, language: .english, cancellation: Cancellation()).words
            #expect(a.map(\.text) == b.map(\.text) && a.map(\.start) == b.map(\.start), "\(clip.name)")
            let q = try quantized.transcribeDetailed(clip.audio, language: .english, cancellation: Cancellation()).words
            let wer = WER.errors(reference: clip.reference, hypothesis: q.map(\.text).joined(separator: " "))
            edits += wer.edits
            total += wer.words
        }
        #expect(Double(edits) / Double(total) <= 0.10)
    }

    /// The five clips joined with a second of silence after each but the last (28.7 s): the
    /// window's own decoding stops at the fourth clip's end, leaving the last sentence to a window
    /// of its own, and the runtime hears it from the same encoder pass instead, in its place.
    @Test func aSentenceLeftAtTheWindowsEndIsHeardWithoutAnotherPass() throws {
        let clips = try WhisperFixtures.librivoxClips()
        let model = try #require(Self.model[.preferred]).get()
        var samples: [Float] = []
        for clip in clips {
            if !samples.isEmpty { samples += [Float](repeating: 0, count: MonoAudio.sampleRate) }
            samples += clip.audio.samples
        }
        let lastStart = Int64((samples.count - clips.last!.audio.samples.count) * 100 / MonoAudio.sampleRate)
        let own = try Self.firstWindow(MonoAudio(samples: samples), model)
        let lastTimestamp = try #require(own.last { $0 > model.vocabulary.firstTimestamp })
        #expect(Int64(lastTimestamp - model.vocabulary.firstTimestamp) * 2 <= lastStart + 50, "the window's own decoding heard the last clip")
        let run = try RuntimeTranscriber(model: model).run(samples, .init(), cancellation: Cancellation())
        #expect(run.encoderPasses == 1)
        let last = run.segments.filter { $0.end > lastStart + 50 }
        let text = last.flatMap(\.tokens).filter { $0.id < model.vocabulary.endOfText }.map { String(decoding: $0.bytes, as: UTF8.self) }.joined()
        let wer = WER.errors(reference: clips.last!.reference, hypothesis: text)
        #expect(Double(wer.edits) <= 0.2 * Double(wer.words), "\(text)")
        #expect(last.allSatisfy { $0.start >= lastStart - 50 }, "\(last.map { ($0.start, $0.end) })")
    }

    @Test func aBeamOrAPromptIsRefusedByName() {
        for options in [WhisperOptions(beamSize: 5), WhisperOptions(initialPrompt: "Dashwood"), WhisperOptions(preciseTiming: true)] {
            #expect(throws: SpeechError.self) { try WhisperEngine(runtimeModel: WhisperFixtures.ct2TinyEn, options: options) }
        }
    }
}
