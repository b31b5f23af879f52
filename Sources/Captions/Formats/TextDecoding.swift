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
    ///
    /// XML says how it is encoded: its byte order mark, else its first bytes (`<?` in UTF-16),
    /// else the encoding its declaration names, which is then the one used.
    static func decode(_ data: Data) throws -> (text: String, encoding: TextEncoding) {
        let bytes = [UInt8](data)
        let utf16: (little: Bool, bom: Bool)? =
            if bytes.starts(with: [0xFF, 0xFE]) { (true, true) }
            else if bytes.starts(with: [0xFE, 0xFF]) { (false, true) }
            else if bytes.starts(with: [0x3C, 0x00, 0x3F, 0x00]) { (true, false) }
            else if bytes.starts(with: [0x00, 0x3C, 0x00, 0x3F]) { (false, false) }
            else { nil }
        if let utf16 {
            let text = try checked(decodeUTF16(bytes.dropFirst(utf16.bom ? 2 : 0), littleEndian: utf16.little))
            let utf8 = Array(text.utf8)
            if let range = declaredEncoding(utf8) {
                let name = String(decoding: utf8[range], as: UTF8.self)
                guard ["utf-16", "utf-16le", "utf-16be", "utf16", "iso-10646-ucs-2"].contains(name.lowercased()) else {
                    throw SubtitleReadError.undecodable(reason: "it is written in UTF-16 but its XML declaration says \"\(name.prefix(30))\"; correct the declaration")
                }
            }
            return (text, utf16.little ? .utf16LE : .utf16BE)
        }
        if let range = declaredEncoding(bytes) {
            return try decode(bytes, declared: String(decoding: bytes[range], as: UTF8.self))
        }
        var sniffer = EightBitSniffer()
        try sniffer.feed(bytes[...])
        let encoding = try sniffer.encoding()
        return (try decode(sniffer.hasBOM ? bytes.dropFirst(3) : bytes[...], as: encoding), encoding)
    }

    /// Bytes in the encoding an XML declaration names (its byte order mark, if any, agreeing).
    private static func decode(_ bytes: [UInt8], declared name: String) throws -> (text: String, encoding: TextEncoding) {
        let hasBOM = bytes.starts(with: [0xEF, 0xBB, 0xBF])
        let body = bytes.dropFirst(hasBOM ? 3 : 0)
        let encoding: TextEncoding
        switch name.lowercased() {
        case "utf-8", "utf8":
            encoding = .utf8
        case "us-ascii", "ascii", "iso646-us":
            if let byte = body.first(where: { $0 >= 0x80 }) {
                throw SubtitleReadError.undecodable(reason: String(format: "its XML declaration says US-ASCII, but it holds byte 0x%02X; correct the declaration", byte))
            }
            encoding = .utf8
        case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1":
            if let byte = body.first(where: { (0x80...0x9F).contains($0) }) {
                throw SubtitleReadError.undecodable(reason: String(format: "its XML declaration says ISO-8859-1, where byte 0x%02X is a control character (if it is Windows-1252, say so in the declaration)", byte))
            }
            encoding = .latin1
        case "windows-1252", "cp1252", "x-cp1252":
            if let byte = body.first(where: undefinedInWindows1252.contains) {
                throw SubtitleReadError.undecodable(reason: String(format: "its XML declaration says Windows-1252, where byte 0x%02X is undefined", byte))
            }
            encoding = .windows1252
        case "utf-16", "utf-16le", "utf-16be", "utf16":
            throw SubtitleReadError.undecodable(reason: "its XML declaration says \(name), but it is written in 8-bit text; correct the declaration")
        default:
            throw SubtitleReadError.undecodable(reason: "its XML declaration names the encoding \"\(name.prefix(30))\", which Capforge does not read (it reads UTF-8, UTF-16, ISO-8859-1, Windows-1252 and US-ASCII)")
        }
        if hasBOM, encoding != .utf8 {
            throw SubtitleReadError.undecodable(reason: "it starts with a UTF-8 byte order mark but its XML declaration says \(name.prefix(30)); correct the declaration")
        }
        return (try decode(body, as: encoding), encoding)
    }

    /// Where the encoding name of an XML declaration at the start of 8-bit `bytes` (after a
    /// UTF-8 byte order mark, if any) lies; nil without one.
    static func declaredEncoding(_ bytes: [UInt8]) -> Range<Int>? {
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        guard bytes[start...].starts(with: Array("<?xml".utf8)), bytes.count > start + 5, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start + 5]),
              let close = bytes[(start + 5)...].prefix(512).firstIndex(of: UInt8(ascii: "?")) else { return nil }
        let declaration = bytes[(start + 5)..<close]
        // `encoding`, then optional spaces, `=`, spaces and a quoted name.
        var index = declaration.startIndex
        while let found = declaration[index...].firstIndex(of: UInt8(ascii: "e")) {
            index = found + 1
            guard declaration[found...].starts(with: Array("encoding".utf8)), [0x20, 0x09, 0x0A, 0x0D].contains(bytes[found - 1]) else { continue }
            var cursor = found + 8
            func spaces() { while cursor < close, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[cursor]) { cursor += 1 } }
            spaces()
            guard cursor < close, bytes[cursor] == UInt8(ascii: "=") else { return nil }
            cursor += 1
            spaces()
            guard cursor < close, bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'"),
                  let end = bytes[(cursor + 1)..<close].firstIndex(of: bytes[cursor]) else { return nil }
            return (cursor + 1)..<end
        }
        return nil
    }

    /// Whether bytes start with a UTF-16 byte order mark (text `EightBitSniffer` cannot judge).
    static func isUTF16(_ head: some Collection<UInt8>) -> Bool {
        head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF])
    }

    /// The UTF-16 encoding a byte order mark at the start of `head` names; nil for 8-bit text.
    static func utf16Encoding(_ head: some Collection<UInt8>) -> TextEncoding? {
        isUTF16(head) ? (head.first == 0xFF ? .utf16LE : .utf16BE) : nil
    }

    /// The start of a file as text, enough to recognise its format: what does not decode (a
    /// character cut at the end) is replaced.
    static func preview(_ head: Data) -> String {
        guard let encoding = utf16Encoding(head) else { return String(decoding: head, as: UTF8.self) }
        let bytes = [UInt8](head.dropFirst(2))
        return String(decoding: units(bytes.prefix(bytes.count / 2 * 2), littleEndian: encoding == .utf16LE), as: UTF16.self)
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
        guard let text = String(validating: units(bytes, littleEndian: littleEndian), as: UTF16.self) else {
            throw SubtitleReadError.undecodable(reason: "invalid UTF-16")
        }
        return text
    }

    /// The UTF-16 code units of an even number of bytes.
    static func units(_ bytes: ArraySlice<UInt8>, littleEndian: Bool) -> [UInt16] {
        stride(from: bytes.startIndex, to: bytes.endIndex, by: 2).map { index -> UInt16 in
            let first = UInt16(bytes[index]), second = UInt16(bytes[index + 1])
            return littleEndian ? first | second << 8 : first << 8 | second
        }
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
