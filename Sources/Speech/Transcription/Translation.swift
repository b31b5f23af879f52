import CapforgeCore
import Foundation

/// What a Whisper decode is asked for: the words as spoken, or English for speech in another
/// language (multilingual models only; no other engine here can translate).
public enum WhisperTask: String, Sendable, Codable {
    case transcribe, translate
}

/// A translating engine seen as one that recognises: whatever the chunked transcriber asks
/// it to hear comes back in English, so chunking, seams and the speech check work unchanged.
final class TranslatingEngine: SpeechEngine, Sendable {
    let identity: EngineIdentity
    let supportedLanguages: Set<Language>
    /// The same model transcribing: what it heard in the source language, when a translation
    /// needs checking.
    let source: any SpeechEngine

    /// `engine` must declare `.translates`.
    init(_ engine: any SpeechEngine) {
        identity = engine.identity
        source = engine
        // Translating English into English is transcription, which the caller does instead.
        supportedLanguages = engine.supportedLanguages.subtracting([.english])
    }

    func transcribe(_ audio: MonoAudio, language: Language, cancellation: Cancellation) throws -> [Word] {
        try source.translate(audio, from: language, cancellation: cancellation).words
    }

    func transcribeWindow(_ audio: MonoAudio, language: Language, nextWindowFrom: Double?, cancellation: Cancellation) throws -> HeardWindow {
        try source.translate(audio, from: language, cancellation: cancellation)
    }

    var windowsAtOnce: Int { source.windowsAtOnce }

    func shareCores(among windows: Int) {
        source.shareCores(among: windows)
    }
}

extension TierEngines {
    /// The engines that translate to English: the multilingual Whisper models. The basic tier
    /// cannot, so it neither stands in for a failed chunk nor arbitrates; the cross-checker
    /// compares transcriptions, so it is left out too.
    public func translating() -> TierEngines {
        let translators: [any SpeechEngine] = modern.filter { $0.capabilities.contains(.translates) }.map(TranslatingEngine.init)
        return TierEngines(modern: translators, basic: [], speechDetector: speechDetector, ignoredModels: ignoredModels,
                           crossChecker: nil, modernLibraryAvailable: modernLibraryAvailable, soundEvents: soundEvents)
    }
}
