import CapforgeCore
import Foundation
import Testing
@testable import Speech

/// Needs the multilingual base model: Scripts/setup --with-base.
@Suite(.serialized, .enabled(if: WhisperFixtures.hasBase, "needs Scripts/setup --with-base"))
struct WhisperLanguageTests {
    static let engine: Result<WhisperEngine, Error> = Result {
        try WhisperEngine(modelPath: try WhisperFixtures.baseModel.get().path)
    }

    @Test func multilingualModelListsItsLanguages() throws {
        let engine = try Self.engine.get()
        #expect(engine.isMultilingual)
        #expect(engine.supportedLanguages.count == 99)
        #expect(Set(engine.supportedLanguages.map(\.code)).isSuperset(of: ["en", "de", "ko", "ja", "haw"]))
        #expect(!engine.supportedLanguages.map(\.code).contains("yue"))
    }

    @Test func detectsEnglishAndGerman() throws {
        let engine = try Self.engine.get()
        let english = try #require(try WhisperFixtures.librivoxClips().first).audio
        let guessEnglish = try #require(try engine.detectLanguage(english))
        #expect(guessEnglish.language == .english && guessEnglish.probability > 0.5)
        let guessGerman = try #require(try engine.detectLanguage(try WhisperFixtures.germanSpeech()))
        #expect(guessGerman.language.code == "de", "guessed \(guessGerman)")
    }

    @Test func autoTranscribesInTheDetectedLanguage() throws {
        let engine = try Self.engine.get()
        let result = try engine.transcribeDetailed(try WhisperFixtures.germanSpeech(), language: nil, cancellation: Cancellation())
        #expect(result.language.code == "de")
        let text = result.words.map(\.text).joined(separator: " ")
        #expect(text.contains("Berlin"), "\(text)")
    }
}
