import CWhisper
import CapforgeCore
import Foundation
import Testing
import TestSupport
@testable import Speech

@Suite(.serialized) struct WhisperEngineTests {
    /// Greedy (the default) and beam search (`--beam 5`) alike, and q8_0 weights as f16 ones.
    @Test(arguments: [(1, WeightEncoding.f16), (5, .f16), (1, .q8_0)])
    func librivoxClipsTranscribeWithinTenPercentWER(beam: Int, weights: WeightEncoding) throws {
        let engine = beam == 1 && weights == .f16 ? try WhisperFixtures.tinyEnEngine.get()
            : try WhisperEngine(modelPath: try (weights == .q8_0 ? WhisperFixtures.tinyEnQ8Model : WhisperFixtures.tinyEnModel).get().path,
                                options: WhisperOptions(beamSize: beam))
        var edits = 0, total = 0
        for clip in try WhisperFixtures.librivoxClips() {
            let result = try engine.transcribeDetailed(clip.audio, language: .english, cancellation: Cancellation())
            let hypothesis = result.words.map(\.text).joined(separator: " ")
            let wer = WER.errors(reference: clip.reference, hypothesis: hypothesis)
            print("whisper \(weights) beam \(beam) \(clip.name): \(wer.edits)/\(wer.words) in \(String(format: "%.2f", result.seconds)) s: \(hypothesis)")
            edits += wer.edits
            total += wer.words
            #expect(result.language.code == "en")
            #expect(result.redecodedSegments == 0)
            #expect(!result.words.isEmpty)
            #expect(result.words.allSatisfy { $0.evidence != nil && (0...1).contains($0.confidence) })
            // Every window of a clip this clear is decoded by the beam, none refused by the library.
            #expect(beam > 1 ? result.beam.map { $0.beamWindows > 0 && $0.unsureWindows + $0.failedWindows == 0 } == true : result.beam == nil)
        }
        let overall = Double(edits) / Double(total)
        print("whisper \(weights) beam \(beam) librivox overall WER \(edits)/\(total) = \(String(format: "%.3f", overall))")
        #expect(overall <= 0.10)
    }

    /// Capforge's beam search picks the tokens of libwhisper's greedy decoding, so a window it
    /// gives up on falls back exactly as a greedy one: best-of-N sampling at higher temperatures.
    @Test func beamSearchRunsInsideGreedyDecoding() throws {
        let greedy = try #require(try WhisperFixtures.tinyEnEngine.get().backend as? WhisperContext)
            .parameters(task: .transcribe, prompt: nil, redecoding: false)
        let beam = try #require(try WhisperEngine(modelPath: try WhisperFixtures.tinyEnModel.get().path, options: WhisperOptions(beamSize: 5))
            .backend as? WhisperContext).parameters(task: .transcribe, prompt: nil, redecoding: false)
        #expect(greedy.strategy == WHISPER_SAMPLING_GREEDY && greedy.greedy.best_of > 1)
        #expect(beam.strategy == WHISPER_SAMPLING_GREEDY && beam.greedy.best_of == greedy.greedy.best_of)
    }

    @Test(arguments: [false, true])
    func wordTimesAreMonotonicInsideAudioAndSegments(precise: Bool) throws {
        let engine = precise
            ? try WhisperEngine(modelPath: try WhisperFixtures.tinyEnModel.get().path,
                                options: WhisperOptions(preciseTiming: true))
            : try WhisperFixtures.tinyEnEngine.get()
        let clip = try #require(try WhisperFixtures.librivoxClips().first)
        // Off the file's origin, as a later chunk of a file would be.
        let audio = MonoAudio(samples: clip.audio.samples, startTime: 12.5)
        let result = try engine.transcribeDetailed(audio, language: .english, cancellation: Cancellation())
        #expect(result.words.count >= 15)
        for (previous, word) in zip(result.words, result.words.dropFirst()) {
            #expect(word.start >= previous.start && word.end >= previous.end, "\(previous) → \(word)")
        }
        for word in result.words {
            #expect(word.start >= audio.startTime && word.end <= audio.endTime && word.start <= word.end)
            #expect(result.segments.contains { word.start >= $0.start && word.end <= $0.end }, "\(word) outside every segment")
            #expect(word.confidence > 0 && word.confidence <= 1)
            #expect(word.tier == .modern && word.engine == "whisper")
        }
        // The first word really starts near the speech, not at the clip's start.
        #expect(result.words.first!.start < audio.startTime + 1.5)
    }

    @Test func preciseTimingRunsDTW() throws {
        let engine = try WhisperEngine(modelPath: try WhisperFixtures.tinyEnModel.get().path,
                                       options: WhisperOptions(preciseTiming: true))
        let clip = try #require(try WhisperFixtures.librivoxClips().last)
        let segments = try engine.backend.decode(clip.audio.samples, language: .english, task: .transcribe, prompt: nil, redecoding: false,
                                                 passesBefore: nil, cancellation: Cancellation()).segments
        let text = segments.flatMap(\.tokens).filter { $0.id < 50256 }
        #expect(!text.isEmpty)
        // t_dtw stays -1 when DTW is silently off (flash attention on or no alignment heads).
        #expect(text.allSatisfy { $0.dtwTime >= 0 && $0.dtwTime <= Int64(clip.audio.duration * 100) + 1 })
    }

    /// 51 s of continuous read speech heard one window at a time: each window pays one encoder
    /// pass, stops at the end of the last sentence it finished, and the next picks up there;
    /// together they hear every clip.
    @Test func oneWindowStopsAtItsLastFinishedSentenceAndTheNextGoesOn() throws {
        let engine = try WhisperFixtures.tinyEnEngine.get()
        let clips = try WhisperFixtures.librivoxClips()
        let gap = [Float](repeating: 0, count: MonoAudio.sampleRate / 4)
        let speech = MonoAudio(samples: Array(repeating: clips.flatMap { $0.audio.samples + gap }, count: 2).flatMap { $0 }, startTime: 3)
        let reference = Array(repeating: clips.map(\.reference).joined(separator: " "), count: 2).joined(separator: " ")
        var cursor = speech.startTime
        var words: [Word] = []
        var windows = 0
        while cursor < speech.endTime - 0.5 {
            let heard = try engine.transcribeWindow(speech.slice(from: cursor, to: speech.endTime), language: .english, nextWindowFrom: cursor,
                                                    cancellation: Cancellation())
            windows += 1
            #expect(heard.heardUntil > cursor + 10 && heard.heardUntil <= min(speech.endTime, cursor + 30), "window from \(cursor) heard until \(heard.heardUntil)")
            #expect(heard.words.allSatisfy { $0.start >= cursor && $0.end <= heard.heardUntil + 0.05 })
            words += heard.words
            cursor = heard.heardUntil
        }
        #expect(windows == 2 || windows == 3)
        let wer = WER.errors(reference: reference, hypothesis: words.map(\.text).joined(separator: " "))
        #expect(Double(wer.edits) / Double(wer.words) <= 0.10, "\(wer.edits)/\(wer.words) errors in \(windows) windows")
    }

    @Test func initialPromptSteersSpelling() throws {
        let clip = try #require(try WhisperFixtures.librivoxClips().first { $0.name.hasSuffix("0880") })
        let plain = try WhisperFixtures.tinyEnEngine.get()
            .transcribe(clip.audio, language: .english, cancellation: Cancellation()).map(\.text)
        let prompted = try WhisperEngine(modelPath: try WhisperFixtures.tinyEnModel.get().path,
                                         options: WhisperOptions(initialPrompt: "Glossary: ill-disposed."))
            .transcribe(clip.audio, language: .english, cancellation: Cancellation()).map(\.text)
        #expect(!plain.contains("ill-disposed"), "the model already knows the word: \(plain)")
        #expect(prompted.contains("ill-disposed"), "\(prompted)")
    }

    /// A speaker saying one sentence four times is not a decoder loop: every repeat has its own
    /// speech, so all four stay, with pauses between them and without.
    @Test(arguments: [0.0, 1.0])
    func aSentenceSaidFourTimesKeepsAllFour(pause: Double) throws {
        let engine = try WhisperFixtures.tinyEnEngine.get()
        let clip = try #require(try WhisperFixtures.librivoxClips().first { $0.name.hasSuffix("0930") })
        let gap = [Float](repeating: 0, count: Int(pause * Double(MonoAudio.sampleRate)))
        let repeated = MonoAudio(samples: Array(repeating: clip.audio.samples + gap, count: 4).flatMap { $0 })
        let words = try engine.transcribe(repeated, language: .english, cancellation: Cancellation())
        let text = WER.words(words.map(\.text).joined(separator: " "))
        #expect(text.filter { $0 == "amiable" }.count == 4, "\(text)")
        // Each copy where it was said, not squeezed together.
        let amiable = words.filter { $0.text.lowercased().hasPrefix("amiable") }.map(\.start)
        let period = clip.audio.duration + pause
        #expect(zip(amiable, amiable.dropFirst()).allSatisfy { abs($1 - $0 - period) < 1.0 }, "\(amiable)")
    }

    /// A word said five times without a pause between is one burst of sound, so the audio alone
    /// backs two of the copies at most; decoded again on its own, the stretch repeats the word
    /// again, so the repeats are speech and stay (the guard used to cut them to two).
    @Test func aWordSaidFiveTimesWithoutPausesKeepsItsRepeats() throws {
        let engine = try WhisperFixtures.tinyEnEngine.get()
        let speech = try BasicTestAudio.synthesised("And here's some more: word word word word word, and that should be all of them.", voice: "en-us")
        let words = try engine.transcribe(MonoAudio(samples: speech), language: .english, cancellation: Cancellation())
        let text = WER.words(words.map(\.text).joined(separator: " "))
        #expect(text.filter { $0 == "word" }.count >= 4, "\(text)")
    }

    @Test func libraryLogGoesToTheHandler() throws {
        let lines = LockedLines()
        WhisperLibrary.setLogHandler { lines.append($0) }
        defer { WhisperLibrary.setLogHandler(nil) }
        _ = try WhisperEngine(modelPath: try WhisperFixtures.tinyEnModel.get().path)
        #expect(lines.all.contains { $0.contains("n_vocab") }, "\(lines.all.prefix(5))")
    }

    @Test func silenceAndNoiseYieldNoWords() throws {
        let engine = try WhisperFixtures.tinyEnEngine.get()
        var generator = SeededGenerator(seed: 7)
        let seconds = 60 * MonoAudio.sampleRate
        // 20 s digital silence, 20 s low hiss, 20 s of a 220 Hz hum with hiss: no speech anywhere.
        let samples: [Float] = (0..<seconds).map { i in
            let hiss = Float(Double(generator.next() % 2001) / 1000 - 1) * 0.01
            switch i / (20 * MonoAudio.sampleRate) {
            case 0: return 0
            case 1: return hiss
            default: return 0.05 * Float(sin(2 * Double.pi * 220 * Double(i) / 16_000)) + hiss
            }
        }
        let words = try engine.transcribe(MonoAudio(samples: samples), language: .english, cancellation: Cancellation())
        #expect(words.isEmpty, "invented: \(words.map(\.text).joined(separator: " "))")
    }

    @Test func cancellationStopsARun() throws {
        let engine = try WhisperFixtures.tinyEnEngine.get()
        let clip = try #require(try WhisperFixtures.librivoxClips().first)
        let long = MonoAudio(samples: Array(repeating: clip.audio.samples, count: 8).flatMap { $0 })
        // Cancelled from a thread of its own, not a shared queue that the tests running beside
        // this one may keep busy: the run stops with Cancelled instead of returning its words.
        // (No wall-time bound: a loaded machine may take any time.)
        let cancellation = Cancellation()
        Thread {
            usleep(300_000)
            cancellation.cancel()
        }.start()
        #expect(throws: Cancelled()) {
            try engine.transcribe(long, language: .english, cancellation: cancellation)
        }

        #expect {
            try engine.transcribe(long, language: .english, cancellation: Cancellation(deadline: Date()))
        } throws: { error in
            if case .timedOut = error as? SpeechError { return true }
            return false
        }
    }

    @Test func englishOnlyModelKnowsOnlyEnglish() throws {
        let engine = try WhisperFixtures.tinyEnEngine.get()
        #expect(engine.supportedLanguages == [.english])
        #expect(engine.identity == EngineIdentity(engine: "whisper", tier: .modern, model: "tiny.en"))
        #expect(try engine.transcribe(MonoAudio(samples: []), language: .english, cancellation: Cancellation()).isEmpty)
        #expect(!engine.isMultilingual)
        let clip = try #require(try WhisperFixtures.librivoxClips().first)
        #expect(try engine.detectLanguage(clip.audio) == nil)
        #expect(throws: SpeechError.unsupportedLanguage(language: Language("de")!, engine: "whisper", available: [.english])) {
            try engine.transcribe(clip.audio, language: Language("de")!, cancellation: Cancellation())
        }
        #expect(WhisperLanguages.all.count == 100)
        #expect(WhisperLanguages.supported(byVocabularySize: 51865).count == 99)
        #expect(WhisperLanguages.supported(byVocabularySize: 51866).last?.code == "yue")
        #expect(WhisperLanguages.all.prefix(3) == ["en", "zh", "de"])
    }
}

final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}

