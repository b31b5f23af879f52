import CapforgeCore
import Foundation
import Testing
@testable import Speech

@Suite("PocketSphinxEngine", .serialized)
struct PocketSphinxEngineTests {
    /// One decoder for the suite: loading the en-us model costs about half a second.
    static let engine = PocketSphinxEngine()
    static let goForwardWords = ["go", "forward", "ten", "meters"]
    static let goForwardStarts = [0.46, 0.64, 1.17, 1.53]

    static func transcribe(_ samples: [Float], startTime: Double = 0) throws -> [Word] {
        try engine.transcribe(MonoAudio(samples: samples, startTime: startTime), language: .english, cancellation: Cancellation())
    }

    static func expectGoForward(_ words: ArraySlice<Word>, shiftedBy shift: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(words.map(\.text) == goForwardWords, sourceLocation: sourceLocation)
        for (word, expected) in zip(words, goForwardStarts) {
            #expect(abs(word.start - (expected + shift)) <= 0.05, "\(word.text) at \(word.start)", sourceLocation: sourceLocation)
        }
    }

    static func log(_ words: [Word]) -> String {
        words.map { String(format: "%@ %.2f–%.2f p=%.3f", $0.text, $0.start, $0.end, $0.confidence) }.joined(separator: ", ")
    }

    @Test func englishIsSupportedBecauseTheDebianModelIsInstalled() {
        #expect(Self.engine.supportedLanguages == [.english])
        #expect(Self.engine.identity == EngineIdentity(engine: "pocketsphinx", tier: .basic, model: "en-us"))
    }

    @Test func goForwardGivesItsWordsAtTheirTimes() throws {
        let words = try Self.transcribe(try BasicTestAudio.goForward())
        print("goforward: \(Self.log(words))")
        Self.expectGoForward(words[...], shiftedBy: 0)
        for word in words {
            #expect(word.tier == .basic && word.engine == "pocketsphinx")
            #expect((0...1).contains(word.confidence) && word.end > word.start)
        }
    }

    @Test func utterancesLaterInTheAudioDoNotDrift() throws {
        let clip = try BasicTestAudio.goForward()
        let samples = BasicTestAudio.placed([(3, clip), (9, clip)], duration: 13)
        let words = try Self.transcribe(samples)
        print("goforward at 3 s and 9 s: \(Self.log(words))")
        try #require(words.count == 8)
        Self.expectGoForward(words[0..<4], shiftedBy: 3)
        Self.expectGoForward(words[4..<8], shiftedBy: 9)
    }

    @Test func wordTimesFollowTheAudioStartTime() throws {
        let words = try Self.transcribe(try BasicTestAudio.goForward(), startTime: 100)
        Self.expectGoForward(words[...], shiftedBy: 100)
    }

    @Test func aClipGivesTheSameWordsWhateverWasDecodedBefore() throws {
        let first = try BasicTestAudio.pcm16(BasicTestAudio.librivox.appendingPathComponent("sense_and_sensibility_01_austen_64kb-0870.wav"), headerBytes: 44)
        let other = try BasicTestAudio.pcm16(BasicTestAudio.librivox.appendingPathComponent("sense_and_sensibility_01_austen_64kb-0890.wav"), headerBytes: 44)
        let before = try Self.transcribe(first)
        _ = try Self.transcribe(other)
        let after = try Self.transcribe(first)
        #expect(before == after)
    }

    @Test func librivoxGivesBasicTierWords() throws {
        let references = try BasicTestAudio.librivoxReferences()
        try #require(references.count == 5)
        var audioSeconds = 0.0
        var decodeSeconds = 0.0
        var errors = 0.0
        var referenceWords = 0
        for id in references.keys.sorted() {
            let samples = try BasicTestAudio.pcm16(BasicTestAudio.librivox.appendingPathComponent("\(id).wav"), headerBytes: 44)
            let started = Date()
            let words = try Self.transcribe(samples)
            decodeSeconds += Date().timeIntervalSince(started)
            audioSeconds += Double(samples.count) / Double(MonoAudio.sampleRate)
            let reference = references[id]!
            let wer = BasicTestAudio.wordErrorRate(reference: reference, hypothesis: words.map(\.text))
            errors += wer * Double(reference.count)
            referenceWords += reference.count
            print(String(format: "librivox %@: WER %.1f%% (%d ref words) HYP: %@", id, wer * 100, reference.count,
                         words.map(\.text).joined(separator: " ")))
            #expect(!words.isEmpty)
            #expect(wer < 0.6, "\(id): WER \(wer)")
            #expect(words.allSatisfy { $0.tier == .basic && $0.engine == "pocketsphinx" && (0...1).contains($0.confidence) })
            #expect(zip(words, words.dropFirst()).allSatisfy { $0.end <= $1.start + 1e-9 })
        }
        print(String(format: "librivox total: WER %.1f%% over %d words; %.1f s audio decoded in %.2f s (RTF %.3f)",
                     errors / Double(referenceWords) * 100, referenceWords, audioSeconds, decodeSeconds, decodeSeconds / audioSeconds))
    }

    @Test func silenceGivesNoWords() throws {
        #expect(try Self.transcribe([Float](repeating: 0, count: 48_000)).isEmpty)
    }

    @Test func aMissingModelIsReportedWithTheDebianPackage() {
        let model = PocketSphinxModel(directory: URL(fileURLWithPath: "/nonexistent/pocketsphinx/model"), name: "en-us")
        let engine = PocketSphinxEngine(model: model)
        #expect(engine.supportedLanguages.isEmpty)
        do {
            _ = try engine.transcribe(MonoAudio(samples: [0]), language: .english, cancellation: Cancellation())
            Issue.record("a missing model must throw")
        } catch let SpeechError.modelMissing(path, hint) {
            #expect(path.contains("/nonexistent/pocketsphinx/model"))
            #expect(hint.contains("pocketsphinx-en-us"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func otherLanguagesAreRefused() {
        #expect(throws: SpeechError.unsupportedLanguage(language: Language("ko")!, engine: "pocketsphinx", available: [.english])) {
            try Self.engine.transcribe(MonoAudio(samples: [0]), language: Language("ko")!, cancellation: Cancellation())
        }
    }

    @Test func cancellationAndDeadlineStopRecognition() throws {
        let audio = MonoAudio(samples: try BasicTestAudio.goForward())
        let cancelled = Cancellation()
        cancelled.cancel()
        #expect(throws: Cancelled()) {
            try Self.engine.transcribe(audio, language: .english, cancellation: cancelled)
        }
        do {
            _ = try Self.engine.transcribe(audio, language: .english, cancellation: Cancellation(deadline: Date()))
            Issue.record("a passed deadline must throw")
        } catch SpeechError.timedOut {
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aDeadlineIsSeenBetweenUtterances() throws {
        let clip = try BasicTestAudio.goForward()
        let clips = (0..<20).map { (at: Double($0) * 4, samples: clip) }
        let audio = MonoAudio(samples: BasicTestAudio.placed(clips, duration: 80))
        // Timed against a run of one of the twenty utterances in the same test, not a fixed
        // bound: a loaded machine slows both alike. A deadline seen only at the end would take all twenty.
        let oneClipStarted = Date()
        _ = try Self.engine.transcribe(MonoAudio(samples: BasicTestAudio.placed([clips[0]], duration: 4)), language: .english,
                                       cancellation: Cancellation())
        let oneClip = Date().timeIntervalSince(oneClipStarted)
        let started = Date()
        do {
            _ = try Self.engine.transcribe(audio, language: .english, cancellation: Cancellation(deadline: Date() + 0.3))
            Issue.record("20 utterances cannot be decoded within 0.3 s")
        } catch SpeechError.timedOut {
            let seconds = Date().timeIntervalSince(started)
            #expect(seconds < max(1, oneClip * 10), "stopped after \(seconds) s; one utterance of twenty takes \(oneClip) s")
        }
    }

    @Test func fillersAreDroppedAndVariantsStripped() {
        let decoded = ["<s>", "read(2)", "[NOISE]", "<sil>", "++BREATH++", "(x)", "</s>"].enumerated().map {
            DecodedWord(text: $1, startFrame: $0 * 10, endFrame: $0 * 10 + 9, probability: 0.5)
        }
        let words = decoded.compactMap { PocketSphinxEngine.word(from: $0, utteranceStart: 2) }
        #expect(words.map(\.text) == ["read", "(x)"])
        #expect(words.first.map { abs($0.start - 2.1) < 1e-9 && abs($0.end - 2.2) < 1e-9 } == true)
    }
}
