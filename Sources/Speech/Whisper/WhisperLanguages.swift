import CWhisper
import CapforgeCore

/// The languages libwhisper knows, by ISO 639-1 code (plus Whisper's few 3-letter ones).
enum WhisperLanguages {
    /// Every language the library knows (large-v3 added a 100th, "yue"); none without the library.
    static let all: [String] = {
        guard let whisper = try? WhisperLibrary.functions() else { return [] }
        return (0...whisper.whisper_lang_max_id()).compactMap { id in whisper.whisper_lang_str(id).map { String(cString: $0) } }
    }()

    /// The languages a multilingual model has tokens for: one per id after the 51,765 text
    /// and the end-of-text tokens, in the library's order.
    static func supported(byVocabularySize size: Int) -> [Language] {
        all.prefix(max(0, size - 51_766)).compactMap(Language.init)
    }

    static func language(of id: Int32) -> Language? {
        (try? WhisperLibrary.functions())?.whisper_lang_str(id).flatMap { Language(String(cString: $0)) }
    }
}
