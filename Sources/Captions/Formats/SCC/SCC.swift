/// CEA-608 (line 21) captions as Scenarist SCC files carry them: words of two 7-bit bytes with
/// odd parity, one word per frame at 29.97 fps, on a grid of 15 rows by 32 columns. Only
/// channel 1 of field 1 (CC1) is written and read.
enum CEA608 {
    static let columns = 32
    static let rows = 15

    /// `byte` with its top bit chosen so that it has an odd number of ones.
    static func withParity(_ byte: UInt8) -> UInt8 {
        let low = byte & 0x7F
        return low.nonzeroBitCount % 2 == 0 ? low | 0x80 : low
    }

    static func hasOddParity(_ byte: UInt8) -> Bool { byte.nonzeroBitCount % 2 == 1 }

    static func hasOddParity(_ word: UInt16) -> Bool { hasOddParity(UInt8(word >> 8)) && hasOddParity(UInt8(word & 0xFF)) }

    /// The word of two 7-bit bytes, each with its parity bit.
    static func word(_ first: UInt8, _ second: UInt8) -> UInt16 {
        UInt16(withParity(first)) << 8 | UInt16(withParity(second))
    }

    /// Miscellaneous control codes: the second byte after 0x14 on channel 1.
    enum Command: UInt8 {
        case resumeCaptionLoading = 0x20, backspace, alarmOff, alarmOn, deleteToEndOfRow
        case rollUp2, rollUp3, rollUp4, flashOn, resumeDirectCaptioning, textRestart, resumeTextDisplay
        case eraseDisplayedMemory, carriageReturn, eraseNonDisplayedMemory, endOfCaption
    }

    static func word(_ command: Command) -> UInt16 { word(0x14, command.rawValue) }

    /// Tab offsets TO1–TO3 move the cursor 1–3 columns: PACs only indent by fours.
    static func tabOffset(_ columns: Int) -> UInt16 { word(0x17, 0x20 + UInt8(columns)) }

    /// Each row's preamble address codes: the first byte and the second's base (0x40 or 0x60).
    private static let rowCodes: [(first: UInt8, base: UInt8)] = [
        (0x11, 0x40), (0x11, 0x60), (0x12, 0x40), (0x12, 0x60), (0x15, 0x40), (0x15, 0x60), (0x16, 0x40), (0x16, 0x60),
        (0x17, 0x40), (0x17, 0x60), (0x10, 0x40), (0x13, 0x40), (0x13, 0x60), (0x14, 0x40), (0x14, 0x60),
    ]

    /// The PAC putting white text at `row` (1–15), `indent` columns in (0–28, a multiple of 4).
    static func preamble(row: Int, indent: Int) -> UInt16 {
        let codes = rowCodes[row - 1]
        return word(codes.first, codes.base | 0x10 | UInt8(indent / 4 * 2))
    }

    /// The row (1–15) and indent a PAC names, from its bytes without parity or channel bit.
    static func preamble(_ first: UInt8, _ second: UInt8) -> (row: Int, indent: Int)? {
        guard (0x40...0x7F).contains(second),
              let index = rowCodes.firstIndex(where: { $0.first == first && $0.base == second & 0x60 }) else { return nil }
        // Below 0x10 the code sets a colour or italics, at column 0.
        let indent = second & 0x10 == 0 ? 0 : Int(second & 0x0E) / 2 * 4
        return (index + 1, indent)
    }

    /// The basic set is ASCII but for these.
    private static let basicDifferences: [UInt8: Character] = [
        0x2A: "á", 0x5C: "é", 0x5E: "í", 0x5F: "ó", 0x60: "ú", 0x7B: "ç", 0x7C: "÷", 0x7D: "Ñ", 0x7E: "ñ", 0x7F: "█",
    ]

    static func basicCharacter(_ byte: UInt8) -> Character? {
        guard (0x20...0x7F).contains(byte) else { return nil }
        return basicDifferences[byte] ?? Character(Unicode.Scalar(byte))
    }

    /// 0x11 0x30–0x3F, drawn in the next column like a basic character; 0x39 is the transparent space.
    private static let special = Array("®°½¿™¢£♪à èâêîôû")
    /// 0x12 0x20–0x3F (Spanish, French, miscellaneous) and 0x13 0x20–0x3F (Portuguese, German,
    /// Danish). Each replaces the character before it: a decoder without them shows that one.
    private static let extended: [UInt8: [Character]] = [
        0x12: Array("ÁÉÓÚÜü‘¡*’—©℠•“”ÀÂÇÈÊËëÎÏïÔÙùÛ«»"),
        0x13: Array("ÃãÍÌìÒòÕõ{}\\^_|~ÄäÖöß¥¤¦ÅåØø┌┐└┘"),
    ]
    /// The basic character sent before each extended one, for decoders without the extended sets.
    private static let fallbacks: [UInt8: [Character]] = [
        0x12: Array("AEOUUu'! '-c .\"\"AACEEEeIIiOUuU\"\""),
        0x13: Array("AaIIiOoOo()/'-!-AaOosY !AaOo++++"),
    ]

    /// A 2-byte code's character (its bytes without parity or channel bit), and whether it replaces
    /// the character before it.
    static func character(_ first: UInt8, _ second: UInt8) -> (character: Character, replacesPrevious: Bool)? {
        if first == 0x11, (0x30...0x3F).contains(second) { return (special[Int(second - 0x30)], false) }
        guard let set = extended[first], (0x20...0x3F).contains(second) else { return nil }
        return (set[Int(second - 0x20)], true)
    }

    /// How a character is sent.
    enum Glyph: Equatable {
        case basic(UInt8)
        /// A special character: the second byte after 0x11.
        case special(UInt8)
        /// An extended character from set 0x12 or 0x13, sent after its basic `fallback`.
        case extended(set: UInt8, code: UInt8, fallback: UInt8)
    }

    /// Every character 608 can draw; the basic set wins where a character is in two sets.
    static let glyphs: [Character: Glyph] = {
        var glyphs: [Character: Glyph] = [:]
        for byte in UInt8(0x20)...0x7F { if let character = basicCharacter(byte) { glyphs[character] = .basic(byte) } }
        for (offset, character) in special.enumerated() where glyphs[character] == nil {
            glyphs[character] = .special(0x30 + UInt8(offset))
        }
        for (set, characters) in extended {
            for (offset, character) in characters.enumerated() where glyphs[character] == nil {
                let fallback = fallbacks[set].flatMap { glyphs[$0[offset]] }
                if case .basic(let byte) = fallback { glyphs[character] = .extended(set: set, code: 0x20 + UInt8(offset), fallback: byte) }
            }
        }
        return glyphs
    }()
}

/// Frame numbers at 29.97 fps and the timecodes SCC lines start with.
enum SCCTimecode {
    static func frame(milliseconds: Int) -> Int { (max(0, milliseconds) * 60 + 1001) / 2002 }

    static func milliseconds(frame: Int) -> Int { (frame * 2002 + 30) / 60 }

    /// Drop-frame `HH:MM:SS;FF`: labels 00 and 01 are skipped at each minute but every tenth, so
    /// the label keeps to the clock.
    static func dropFrameLabel(_ frame: Int) -> String {
        let tens = frame / 17_982, rest = frame % 17_982
        let label = frame + 18 * tens + (rest < 2 ? 0 : 2 * ((rest - 2) / 1798))
        let fields = [label / 108_000, label / 1800 % 60, label / 30 % 60]
        return fields.map(pad).joined(separator: ":") + ";" + pad(label % 30)
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }

    /// The frame a timecode names: drop-frame when its frames follow `;` (or `.` or `,`),
    /// non-drop when they follow `:`.
    static func frame<S: StringProtocol>(_ text: S, line: Int) throws -> Int {
        let fields = text.split(omittingEmptySubsequences: false) { ":;.,".contains($0) }
        guard fields.count == 4, fields.enumerated().allSatisfy({ index, field in
            (index == 0 ? 1...2 : 2...2).contains(field.count) && field.allSatisfy { $0.isASCII && $0.isNumber }
        }), let separator = text.dropLast(2).last else {
            throw SubtitleReadError.malformedTiming(line: line, text: String(text))
        }
        let numbers = fields.compactMap { Int($0) }
        let (hours, minutes, seconds, frames) = (numbers[0], numbers[1], numbers[2], numbers[3])
        guard minutes < 60, seconds < 60, frames < 30 else {
            throw SubtitleReadError.malformedEvent(
                line: line, reason: "timecode \(text) is out of range: minutes and seconds run 00–59, frames 00–29 at 29.97 fps")
        }
        let count = ((hours * 60 + minutes) * 60 + seconds) * 30 + frames
        guard separator != ":" else { return count }
        let totalMinutes = hours * 60 + minutes
        return count - 2 * (totalMinutes - totalMinutes / 10)
    }
}
