import CapforgeCore

/// How caption text is measured: line lengths in display columns (wide East Asian characters
/// take two), reading speed in user-perceived characters.
public enum TextMetrics {
    public static func width(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + columns($1) }
    }

    /// Characters as a reader sees them, for characters-per-second.
    public static func characterCount(_ lines: [String]) -> Int {
        lines.reduce(0) { $0 + $1.count }
    }

    /// Whitespace-separated words, for words-per-minute.
    public static func wordCount(_ lines: [String]) -> Int {
        lines.reduce(0) { $0 + $1.split(whereSeparator: \.isWhitespace).count }
    }

    private static func columns(_ scalar: Unicode.Scalar) -> Int {
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        return isWide(scalar) ? 2 : 1
    }

    /// East Asian Wide and Fullwidth ranges (the blocks captions meet in practice).
    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    static func isUnspaced(_ character: Character) -> Bool { UnspacedScript.contains(character) }

    /// The separator to put between two words of running text.
    static func separator(between left: String, and right: String) -> String {
        guard let last = left.last, let first = right.first else { return "" }
        return isUnspaced(last) || isUnspaced(first) ? "" : " "
    }
}
