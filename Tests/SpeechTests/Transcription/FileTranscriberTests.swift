import CapforgeCore
import Foundation
import Testing
@testable import Speech

/// A file's transcription as Speech decides it: speech, language, tier, passes, and the notes
/// for what the request did not say.
@Suite struct FileTranscriberTests {
    /// Tone engines that say which language they hear (with a probability) and translate as they transcribe.
    final class Multilingual: SpeechEngine, @unchecked Sendable {
        let tones: ToneEngine
        let guess: LanguageGuess?
        init(languages: Set<Language>, guess: LanguageGuess?) {
            tones = ToneEngine(engine: "whisper", tier: .modern, languages: languages)
            self.guess = guess
        }
        var identity: EngineIdentity { tones.identity }
        var supportedLanguages: Set<Language> { tones.supportedLanguages }
        var capabilities: EngineCapabilities { [.detectsLanguage, .translates] }
        func transcribe(_ audio: MonoAudio, language: Language, cancellation: Cancellation) throws -> [Word] {
            try tones.transcribe(audio, language: language, cancellation: cancellation)
        }
        func detectLanguage(_ audio: MonoAudio) throws -> LanguageGuess? { guess }
        func translate(_ audio: MonoAudio, from language: Language, cancellation: Cancellation) throws -> HeardWindow {
            HeardWindow(words: try transcribe(audio, language: language, cancellation: cancellation), heardUntil: audio.endTime)
        }
    }

    private let audio = burstAudio(seconds: 6, bursts: [(1.0, 4.0)])
    private let korean = Language("ko")!

    private func transcriber(modern: [any SpeechEngine], basic: [any SpeechEngine] = [], translates: Bool = false) -> FileTranscriber {
        FileTranscriber(engines: TierEngines(modern: modern, basic: basic, speechDetector: EnergyVAD()), calibration: CalibrationTable(engines: [:]),
                        options: TranscriptionOptions(), translates: translates)
    }

    @Test func anUntaggedFileIsVotedOnOrAssumedEnglishWithANote() throws {
        let heard = try transcriber(modern: [Multilingual(languages: [.english, korean], guess: LanguageGuess(language: korean, probability: 0.9))])
            .plan(audio, request: TranscriptionRequest(language: nil, languageSource: .streamTag))
        #expect(heard.plan.language == korean && heard.languageSource == .detected && heard.notes.isEmpty)
        #expect(try heard.speech.count == 1 && heard.passes.get().map(\.isTranslation) == [false])

        let unsure = try transcriber(modern: [Multilingual(languages: [.english], guess: nil)])
            .plan(audio, request: TranscriptionRequest(language: nil, languageSource: .streamTag))
        #expect(unsure.plan.language == .english && unsure.languageSource == .fallback)
        #expect(unsure.notes == [.languageAssumed(detectorInstalled: true)])

        let noDetector = try transcriber(modern: [ToneEngine(engine: "whisper", tier: .modern, languages: [.english])])
            .plan(audio, request: TranscriptionRequest(language: nil, languageSource: .streamTag))
        #expect(noDetector.notes == [.languageAssumed(detectorInstalled: false)])
        let silent = try transcriber(modern: [ToneEngine(engine: "whisper", tier: .modern, languages: [.english])])
            .plan(burstAudio(seconds: 3, bursts: []), request: TranscriptionRequest(language: nil, languageSource: .streamTag))
        #expect(silent.speech.isEmpty && silent.notes.isEmpty, "a file without speech has no language to be wrong about")
    }

    @Test func translationPassesAndWhyThereIsNone() throws {
        let files = transcriber(modern: [Multilingual(languages: [.english, korean], guess: nil)], translates: true)
        let both = try files.plan(audio, request: TranscriptionRequest(language: korean, languageSource: .requested, translate: true, alsoOriginal: true))
        #expect(try both.passes.get().map(\.isTranslation) == [true, false])
        #expect(try both.passes.get().map(\.captionLanguage) == [.english, korean])

        let english = try files.plan(audio, request: TranscriptionRequest(language: .english, languageSource: .streamTag, translate: true))
        #expect(english.notes == [.nothingToTranslate(why: .english(source: .streamTag))])
        #expect(english.notes[0].description == "the audio is tagged English, so --translate has nothing to translate: the captions are what was said")

        // Korean heard by the basic tier alone: nothing here translates it.
        let basicOnly = transcriber(modern: [ToneEngine(engine: "whisper", tier: .modern, languages: [.english])],
                                    basic: [ToneEngine(engine: "vosk", tier: .basic, languages: [korean])], translates: true)
        let refused = try basicOnly.plan(audio, request: TranscriptionRequest(language: korean, languageSource: .requested, translate: true))
        #expect(throws: FileTranscriptionError.self) { try refused.passes.get() }
        #expect(refused.plan.language == korean, "the language is decided before the translation is refused")
        let original = try basicOnly.plan(audio, request: TranscriptionRequest(language: korean, languageSource: .requested, translate: true, alsoOriginal: true))
        #expect(original.notes == [.cannotTranslate(language: korean, recognisedByBasicTier: true)])
        #expect(try original.passes.get().map(\.isTranslation) == [false])
    }

    @Test func aTranslationIsEnglishFromTheSpokenLanguageAndSpeechNothingHeardFails() throws {
        let files = transcriber(modern: [Multilingual(languages: [.english, korean], guess: nil)], translates: true)
        let planned = try files.plan(audio, request: TranscriptionRequest(language: korean, languageSource: .requested, translate: true))
        let heard = try files.transcribe(audio, pass: try planned.passes.get()[0], of: planned, journal: nil, cancellation: Cancellation()) { _ in }
        #expect(heard.transcript.language == .english && heard.transcript.translatedFrom == korean && !heard.transcript.words.isEmpty)

        let failing = ToneEngine(engine: "whisper", tier: .modern, languages: [.english])
        failing.behaviour = { _ in .fail }
        let broken = transcriber(modern: [failing])
        let plan = try broken.plan(audio, request: TranscriptionRequest(language: .english, languageSource: .requested))
        #expect {
            try broken.transcribe(audio, pass: try plan.passes.get()[0], of: plan, journal: nil, cancellation: Cancellation()) { _ in }
        } throws: { error in
            guard case .recognitionFailed(let reason)? = error as? FileTranscriptionError else { return false }
            return reason.contains("injected failure")
        }
    }

    @Test func eachPassJournalsApartUnderTheFilesKey() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-file-journal-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = transcriber(modern: [Multilingual(languages: [.english, korean], guess: nil)], translates: true)
        let planned = try files.plan(audio, request: TranscriptionRequest(language: korean, languageSource: .requested, translate: true, alsoOriginal: true))
        let place = JournalPlace(folder: StateFolder(tree: folder), name: "talk", key: "settings-file")
        for pass in try planned.passes.get() {
            _ = try files.transcribe(audio, pass: pass, of: planned, journal: place, cancellation: Cancellation()) { _ in }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["talk-translation.jsonl", "talk.jsonl"])
    }
}
