/// Characters that act instead of showing: C0 and C1 controls and DEL (a terminal's escape
/// sequences start with ESC or CSI; a line break ends a header line), the line and paragraph
/// separators, and the bidirectional controls (which reorder what follows them on screen).
/// Text from outside (file and folder names, subtitles, transcripts, errors quoting them) is
/// written with them escaped wherever they would act: on a terminal, in a subtitle's header.
public enum ControlCharacters {
    public static func contains(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return bidiControls.contains(scalar.value)
        }
    }

    public static func contains(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.contains(where: contains)
    }

    /// `text` with each of them but those in `kept` written as Swift writes it (`\u{1B}`).
    public static func escaped(_ text: some StringProtocol, keeping kept: Set<Unicode.Scalar> = []) -> String {
        escaped(text, keeping: kept) { "\\u{" + String($0.value, radix: 16, uppercase: true) + "}" }
    }

    /// JSON text with each of them but line feeds (a pretty-printed document's own) written as
    /// a JSON escape (`\u009b`): the same document to a reader, and nothing a terminal acts on.
    /// Encoders escape C0 inside strings already; C1 and the bidirectional controls they leave.
    public static func jsonEscaped(_ json: String) -> String {
        escaped(json, keeping: ["\n"]) { scalar in
            let hex = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }

    private static func escaped(_ text: some StringProtocol, keeping kept: Set<Unicode.Scalar>,
                                as escape: (Unicode.Scalar) -> String) -> String {
        guard text.unicodeScalars.contains(where: { contains($0) && !kept.contains($0) }) else { return String(text) }
        var safe = ""
        for scalar in text.unicodeScalars {
            if contains(scalar) && !kept.contains(scalar) {
                safe += escape(scalar)
            } else {
                safe.unicodeScalars.append(scalar)
            }
        }
        return safe
    }

    private static let bidiControls: Set<UInt32> = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]
}
