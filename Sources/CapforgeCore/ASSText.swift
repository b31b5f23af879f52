/// Text inside an ASS event: braces would open an override block and a backslash starts a
/// command (`\N`, `\h`), and ASS has no escape for either. Braces become their fullwidth forms
/// and a word joiner after a backslash keeps it literal.
public enum ASSText {
    /// The style of the always-visible "basic recognition" notice event: writers add it, the burn-in
    /// manages it, readers leave it out of the captions.
    public static let noticeStyle = "Notice"

    public static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "{", with: "\u{FF5B}")
            .replacingOccurrences(of: "}", with: "\u{FF5D}")
            .replacingOccurrences(of: "\\", with: "\\\u{2060}")
    }
}
