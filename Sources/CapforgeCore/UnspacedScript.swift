/// Scripts written without spaces between words (Chinese, Japanese, Thai and their neighbours):
/// recognisers give their text in pieces smaller than words, captions break it between any two
/// characters the word segmentation allows, and words join without a space.
public enum UnspacedScript {
    public static func contains(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        switch scalar.value {
        case 0x0E00...0x0EFF,  // Thai, Lao
             0x1000...0x109F,  // Myanmar
             0x1780...0x17FF,  // Khmer
             0x3000...0x303F,  // CJK punctuation
             0x3040...0x30FF,  // Hiragana, Katakana
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x3FFFD,  // Han
             0xFF00...0xFF60:  // fullwidth forms
            return true
        default:
            return false
        }
    }
}
