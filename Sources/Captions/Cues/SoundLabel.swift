import CapforgeCore

/// What a cue for deaf and hard-of-hearing viewers (`--sdh`) says of a sound, in the captions'
/// language. Instrumental music gets a bracketed description, as Netflix's SDH guidelines ask
/// (music notes are for lyrics); a language without a description here gets a music note,
/// which needs no translation.
public enum SoundLabel {
    private static let music: [String: String] = [
        "en": "[music]", "fr": "[musique]", "de": "[Musik]", "es": "[música]", "it": "[musica]", "pt": "[música]", "nl": "[muziek]",
        "sv": "[musik]", "da": "[musik]", "nb": "[musikk]", "no": "[musikk]", "pl": "[muzyka]", "ru": "[музыка]", "ja": "［音楽］",
        "zh": "［音乐］", "ko": "[음악]",
    ]

    /// The label of music without a voice.
    public static func music(in language: Language) -> String { music[language.code] ?? "♪" }
}
