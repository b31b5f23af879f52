import Foundation

/// The encodings subtitle files come in; anything else is rejected rather than guessed.
public enum TextEncoding: String, Codable, Sendable {
    case utf8 = "UTF-8"
    case utf16LE = "UTF-16LE"
    case utf16BE = "UTF-16BE"
    case windows1252 = "Windows-1252"
    case latin1 = "ISO-8859-1"
}

enum TextDecoding {
    /// Decodes bytes with BOM detection, then strict UTF-8, then Windows-1252 (a superset of
    /// Latin-1's printable characters). Bytes Windows-1252 leaves undefined, or control
    /// characters other than tab and line breaks, mean it is not text in a known encoding.
    static func decode(_ data: Data) throws -> (text: String, encoding: TextEncoding) {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let little = bytes[0] == 0xFF
            return (try checked(decodeUTF16(bytes.dropFirst(2), littleEndian: little)), little ? .utf16LE : .utf16BE)
        }
        var sniffer = EightBitSniffer()
        try sniffer.feed(bytes[...])
        let encoding = try sniffer.encoding()
        return (try decode(sniffer.hasBOM ? bytes.dropFirst(3) : bytes[...], as: encoding), encoding)
    }

    /// Whether bytes start with a UTF-16 byte order mark (text `EightBitSniffer` cannot judge).
    static func isUTF16(_ head: some Collection<UInt8>) -> Bool {
        head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF])
    }

    /// `decode`'s choice among UTF-8, Windows-1252 and Latin-1, made from bytes fed a piece at a
    /// time, so a large file is judged without being in memory whole. Each piece must end at a
    /// line feed (or the end of the text): no UTF-8 sequence spans one.
    struct EightBitSniffer {
        private(set) var hasBOM = false
        private var started = false
        private var validUTF8 = true
        private var undefined: UInt8?
        private var highControls = false

        mutating func feed(_ piece: ArraySlice<UInt8>) throws {
            var piece = piece
            if !started {
                started = true
                hasBOM = piece.starts(with: [0xEF, 0xBB, 0xBF])
                if hasBOM { piece = piece.dropFirst(3) }
            }
            if !hasBOM && piece.contains(0) { throw SubtitleReadError.binary }
            validUTF8 = validUTF8 && String(validating: piece, as: UTF8.self) != nil
            undefined = undefined ?? piece.first(where: undefinedInWindows1252.contains)
            highControls = highControls || piece.contains { (0x80...0x9F).contains($0) }
        }

        func encoding() throws -> TextEncoding {
            if validUTF8 { return .utf8 }
            if hasBOM { throw SubtitleReadError.undecodable(reason: "it has a UTF-8 byte order mark but invalid UTF-8 bytes") }
            if let undefined {
                throw SubtitleReadError.undecodable(reason: String(format: "not UTF-8, and byte 0x%02X is undefined in Windows-1252", undefined))
            }
            // Latin-1 and Windows-1252 differ only in 0x80...0x9F, which Latin-1 uses for controls.
            return highControls ? .windows1252 : .latin1
        }
    }

    /// Text of 8-bit `bytes` in an encoding `EightBitSniffer` chose for them (no BOM).
    static func decode(_ bytes: ArraySlice<UInt8>, as encoding: TextEncoding) throws -> String {
        switch encoding {
        case .utf8:
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw SubtitleReadError.undecodable(reason: "invalid UTF-8 bytes")
            }
            return try checked(text)
        case .windows1252, .latin1:
            return try checked(String(bytes.map(windows1252Character)))
        case .utf16LE, .utf16BE:
            return try checked(decodeUTF16(bytes, littleEndian: encoding == .utf16LE))
        }
    }

    private static func decodeUTF16(_ bytes: ArraySlice<UInt8>, littleEndian: Bool) throws -> String {
        guard bytes.count % 2 == 0 else { throw SubtitleReadError.undecodable(reason: "odd number of bytes for UTF-16") }
        let units = stride(from: bytes.startIndex, to: bytes.endIndex, by: 2).map { index -> UInt16 in
            let first = UInt16(bytes[index]), second = UInt16(bytes[index + 1])
            return littleEndian ? first | second << 8 : first << 8 | second
        }
        guard let text = String(validating: units, as: UTF16.self) else {
            throw SubtitleReadError.undecodable(reason: "invalid UTF-16")
        }
        return text
    }

    private static func checked(_ text: String) throws -> String {
        let allowedControls: Set<UInt32> = [0x09, 0x0A, 0x0D, 0x0C]
        if text.unicodeScalars.contains(where: { ($0.value < 0x20 && !allowedControls.contains($0.value)) || (0x80...0x9F).contains($0.value) }) {
            throw SubtitleReadError.undecodable(reason: "control characters found where text should be")
        }
        return text
    }

    private static let undefinedInWindows1252: Set<UInt8> = [0x81, 0x8D, 0x8F, 0x90, 0x9D]

    private static func windows1252Character(_ byte: UInt8) -> Character {
        guard (0x80...0x9F).contains(byte) else { return Character(Unicode.Scalar(byte)) }
        let scalar = windows1252High[Int(byte - 0x80)]
        return Character(Unicode.Scalar(scalar)!)
    }

    /// Windows-1252 0x80...0x9F; the five undefined bytes never reach this table.
    private static let windows1252High: [UInt32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]
}
