/// Text inside an ASS event: braces would open an override block and a backslash starts a
/// command (`\N`, `\h`), and ASS has no escape for either. Braces become their fullwidth forms
/// and a word joiner after a backslash keeps it literal.
public enum ASSText {
    public static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "{", with: "\u{FF5B}")
            .replacingOccurrences(of: "}", with: "\u{FF5D}")
            .replacingOccurrences(of: "\\", with: "\\\u{2060}")
    }
}
