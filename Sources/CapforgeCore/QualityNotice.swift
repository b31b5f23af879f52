/// The visible notice shown with captions from the basic tier, in the caption language where
/// a translation exists and in English otherwise.
public enum QualityNotice {
    public static let english = "Automatic captions \u{2014} basic recognition, lower accuracy"

    private static let translations: [String: String] = [
        "de": "Automatische Untertitel \u{2014} einfache Erkennung, geringere Genauigkeit",
        "es": "Subtítulos automáticos \u{2014} reconocimiento básico, menor precisión",
        "fr": "Sous-titres automatiques \u{2014} reconnaissance de base, précision réduite",
        "it": "Sottotitoli automatici \u{2014} riconoscimento di base, precisione inferiore",
        "ja": "自動字幕 \u{2014} 簡易認識のため精度が低めです",
        "ko": "자동 자막 \u{2014} 기본 인식, 정확도 낮음",
        "nl": "Automatische ondertiteling \u{2014} basisherkenning, lagere nauwkeurigheid",
        "pl": "Napisy automatyczne \u{2014} podstawowe rozpoznawanie, niższa dokładność",
        "pt": "Legendas automáticas \u{2014} reconhecimento básico, menor precisão",
        "ru": "Автоматические субтитры \u{2014} базовое распознавание, пониженная точность",
        "zh": "自动字幕 \u{2014} 基础识别，准确度较低",
    ]

    /// The notice for captions in `language`; English when there is no translation or no language.
    public static func text(for language: Language?) -> String {
        language.flatMap { translations[$0.code] } ?? english
    }
}
