import CapforgeCore
import Foundation
import Speech
import Testing

private let french = Language("fr")!

/// A translator that writes "hello" for each window and says it cut a loop and dropped a word
/// over no speech there, as Whisper does while translating.
private final class LoopingTranslator: SpeechEngine, @unchecked Sendable {
    let identity = EngineIdentity(engine: "whisper", tier: .modern, model: "multilingual")
    let supportedLanguages: Set<Language> = [.english, french]
    let capabilities: EngineCapabilities = [.translates]

    func transcribe(_ audio: MonoAudio, language: Language, cancellation: Cancellation) throws -> [Word] {
        Issue.record("a translating run transcribed")
        return []
    }

    func translate(_ audio: MonoAudio, from language: Language, cancellation: Cancellation) throws -> HeardWindow {
        let start = audio.startTime + 2
        return HeardWindow(
            words: [Word(text: "hello", start: start, end: start + 0.4, confidence: 0.9, tier: .modern, engine: "whisper")],
            heardUntil: audio.endTime,
            loopCuts: [LoopCut(start: start, end: start + 3, heard: "hello hello hello hello", kept: "hello")],
            droppedWords: [Word(text: "Music", start: audio.endTime - 1, end: audio.endTime - 0.5, confidence: 0.9, tier: .modern, engine: "whisper")]
                .dropped(.steadySound))
    }
}

@Suite struct TranslatingEngineTests {
    @Test func translatingKeepsWhatTheEngineCutAndDropped() throws {
        var wholeFile = TranscriptionOptions()
        wholeFile.chunking = false
        let audio = burstAudio(seconds: 20, bursts: [(2, 8)])
        let engines = TierEngines(modern: [LoopingTranslator()], basic: []).translating()
        let transcript = try ChunkedTranscriber(engines: engines, calibration: CalibrationTable(engines: [:]), options: wholeFile)
            .transcribe(audio, plan: TierPlan(language: french, mode: .modern, basicFallback: false))
        #expect(transcript.words.map(\.text) == ["hello"])
        #expect(transcript.loopCuts.map(\.kept) == ["hello"])
        #expect(transcript.droppedWords.map(\.word.text) == ["Music"])
    }

    /// The language vote and translation go to the engines that declare them, whatever their
    /// languages: a many-language engine without the capability is neither asked to detect nor
    /// to translate (it once was, by the count of its languages).
    @Test func enginesAreChosenByWhatTheyDeclare() throws {
        let recogniser = ToneEngine(engine: "many", tier: .modern, languages: [.english, french, Language("de")!])
        let translator = LoopingTranslator()
        let engines = TierEngines(modern: [recogniser, translator], basic: [])
        #expect(engines.languageDetector == nil)
        #expect(engines.translating().modern.map(\.identity) == [translator.identity])
        let lazy = LazyEngine(identity: recogniser.identity, supportedLanguages: recogniser.supportedLanguages,
                              capabilities: [.detectsLanguage]) { recogniser }
        #expect(TierEngines(modern: [recogniser, lazy], basic: []).languageDetector?.identity == lazy.identity)
        #expect(TierEngines(modern: [lazy], basic: []).translating().modern.isEmpty)
        #expect(throws: SpeechError.self) { try recogniser.translate(burstAudio(seconds: 1, bursts: []), from: french, cancellation: Cancellation()) }
    }
}
