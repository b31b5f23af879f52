import CapforgeCore

/// Something a transcription did or assumed that the request did not ask for, said to the user
/// wherever they look (terminal, summary, report); `description` is the sentence.
public enum TranscriptionNote: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Why `--translate` made no translation of a file whose language is English.
    public enum NothingToTranslate: Sendable, Equatable, Codable {
        case noSpeech
        /// English was assumed, not heard.
        case languageUnknown
        /// English, as the source says.
        case english(LanguageSource)
    }

    /// The spoken language could not be told, so English was assumed; `detectorInstalled`:
    /// a model that detects languages was there and unsure.
    case languageAssumed(detectorInstalled: Bool)
    case nothingToTranslate(NothingToTranslate)
    /// No installed model translates `language`; only the spoken language's captions are made.
    case cannotTranslate(Language, recognisedByBasicTier: Bool)

    public var description: String {
        switch self {
        case .languageAssumed(let detectorInstalled):
            let why = detectorInstalled ? "detection found no supported language it was sure of" : "no multilingual Whisper model is installed to detect it"
            return "the spoken language was not verified: English assumed (\(why)); pass --lang CODE if it is not English"
        case .nothingToTranslate(.noSpeech):
            return "no speech was found, so --translate had nothing to translate"
        case .nothingToTranslate(.languageUnknown):
            return "--translate translated nothing: the spoken language could not be told, so English was assumed; pass --lang CODE to translate it"
        case .nothingToTranslate(.english(let source)):
            // Said as known, not as fact: noise Whisper calls English is not English speech.
            let known = source == .detected ? "Whisper heard English" : source == .streamTag ? "the audio is tagged English" : "--lang en was given"
            return "\(known), so --translate has nothing to translate: the captions are what was said"
        case .cannotTranslate(let language, let basic):
            return Self.untranslatable(language, recognisedByBasicTier: basic) + "; only the \(language.name) captions were written"
        }
    }

    /// Why `language` cannot be translated: the note's start, and the error when nothing else was asked for.
    static func untranslatable(_ language: Language, recognisedByBasicTier basic: Bool) -> String {
        "cannot translate \(language.name) to English: only a multilingual Whisper model can, and none installed here covers it"
            + (basic ? " (the basic tier, which recognises it, cannot translate)" : "")
            + "; install one with 'capforge models install base'"
    }
}
