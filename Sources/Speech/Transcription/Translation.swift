import CapforgeCore
import Foundation

/// What a Whisper decode is asked for: the words as spoken, or English for speech in another
/// language (multilingual models only; no other engine here can translate).
public enum WhisperTask: String, Sendable, Codable {
    case transcribe, translate
}

/// An engine that can hear speech in a language and write it as English.
public protocol SpeechTranslator: AnyObject, Sendable {
    /// English words for speech in `language`, timed on the file's timeline, with what the
    /// engine cut or dropped on the way.
    func translate(_ audio: MonoAudio, from language: Language, cancellation: Cancellation) throws -> HeardWindow
}

extension LazyEngine: SpeechTranslator {
    public func translate(_ audio: MonoAudio, from language: Language, cancellation: Cancellation) throws -> HeardWindow {
        guard let translator = try engine() as? SpeechTranslator else {
            throw SpeechError.engineFailed(engine: identity.engine, reason: "\(identity.model) cannot translate")
        }
        return try translator.translate(audio, from: language, cancellation: cancellation)
    }
}

/// A translating engine seen as one that recognises: whatever the chunked transcriber asks
/// it to hear comes back in English, so chunking, seams and the speech check work unchanged.
final class TranslatingEngine: SpeechEngine, Sendable {
    let identity: EngineIdentity
    let supportedLanguages: Set<Language>
    private let translator: any SpeechTranslator
    /// The same model transcribing: what it heard in the source language, when a translation
    /// needs checking.
    let source: any SpeechEngine

    init(_ engine: any SpeechEngine & SpeechTranslator) {
        identity = engine.identity
        source = engine
        // Translating English into English is transcription, which the caller does instead.
        supportedLanguages = engine.supportedLanguages.subtracting([.english])
        translator = engine
    }

    func transcribe(_ audio: MonoAudio, language: Language, cancellation: Cancellation) throws -> [Word] {
        try translator.translate(audio, from: language, cancellation: cancellation).words
    }

    func transcribeWindow(_ audio: MonoAudio, language: Language, nextWindowFrom: Double?, cancellation: Cancellation) throws -> HeardWindow {
        try translator.translate(audio, from: language, cancellation: cancellation)
    }
}

extension TierEngines {
    /// The engines that translate to English: the multilingual Whisper models. The basic tier
    /// cannot, so it neither stands in for a failed chunk nor arbitrates; the cross-checker
    /// compares transcriptions, so it is left out too.
    public func translating() -> TierEngines {
        let translators = modern.compactMap { engine -> (any SpeechEngine)? in
            guard engine.supportedLanguages.count > 1, let translator = engine as? any SpeechEngine & SpeechTranslator else { return nil }
            return TranslatingEngine(translator)
        }
        return TierEngines(modern: translators, basic: [], speechDetector: speechDetector, ignoredModels: ignoredModels,
                           crossChecker: nil, modernLibraryAvailable: modernLibraryAvailable)
    }
}
