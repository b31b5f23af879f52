import CapforgeCore
import Foundation

/// EBU STL (Tech 3264), the binary exchange format European broadcasters take: a GSI block
/// (1024 bytes: frame rate, language, code page, counts) and a TTI block (128 bytes) per cue,
/// with extension blocks where its text needs them; Level-1 teletext (40 columns), centred on the
/// bottom rows, text in ISO 6937. The tier summary travels as comment blocks (CF 1) before the
/// cues and in the GSI's user-defined area. What the format cannot carry is said in `warnings`.
public struct STLWriter: SubtitleWriter {
    public var cues: [Cue]
    public var transcript: Transcript
    /// The video's frame rate: STL has 25 and 30 fps; other rates are timed in the nearer.
    public var frameRate: Double?
    public var created: Date

    public init(cues: [Cue], transcript: Transcript, frameRate: Double?, created: Date = Date()) {
        self.cues = cues
        self.transcript = transcript
        self.frameRate = frameRate
        self.created = created
    }

    static let columns = 40
    static let textBytes = 112

    /// STL's rate for the video: 30 for the 30 and 60 families, 25 otherwise.
    public var framesPerSecond: Int {
        guard let rate = frameRate, rate.isFinite else { return 25 }
        return [29.97, 30, 59.94, 60].contains { abs($0 - rate) < 0.05 } ? 30 : 25
    }

    public var warnings: [String] { encoded().warnings }

    public func data() throws -> Data { encoded().data }

    private func encoded() -> (data: Data, warnings: [String]) {
        var warnings: [String] = []
        if let rate = frameRate, rate.isFinite, abs(rate - Double(framesPerSecond)) > 0.05, abs(rate - 29.97) > 0.05, abs(rate - 59.94) > 0.05 {
            warnings.append(String(format: "EBU STL: the video runs at %g fps, which STL has not; times are in %d fps frames", rate, framesPerSecond))
        }
        var unsupported = Set<Character>()
        var rewrapped = 0
        var blocks: [[UInt8]] = []
        var number = 0
        for line in TierSummary(transcript: transcript).lines {
            blocks += tti(number: number, start: 0, end: 0, lines: [String(line.prefix(Self.columns * 2))], comment: true, unsupported: &unsupported)
            number += 1
        }
        for cue in cues {
            let lines = LineWrap.wrap(cue.lines, columns: Self.columns)
            if lines != cue.lines { rewrapped += 1 }
            blocks += tti(number: number, start: cue.start, end: cue.end, lines: lines, comment: false, unsupported: &unsupported)
            number += 1
        }
        if rewrapped > 0 { warnings.append("EBU STL: \(rewrapped) cue(s) re-wrapped to teletext's \(Self.columns) columns") }
        if !unsupported.isEmpty {
            warnings.append("EBU STL: ISO 6937 cannot carry \(unsupported.sorted().map { "\u{201C}\($0)\u{201D}" }.joined(separator: ", ")); written as \u{201C}?\u{201D}")
        }
        var data = Data(gsi(blocks: blocks.count, subtitles: number))
        for block in blocks { data += block }
        return (data, warnings)
    }

    /// The General Subtitle Information block.
    private func gsi(blocks: Int, subtitles: Int) -> [UInt8] {
        let date = { (date: Date) -> String in
            let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
            return String(format: "%02d%02d%02d", (parts.year ?? 2000) % 100, parts.month ?? 1, parts.day ?? 1)
        }
        let firstIn = cues.first.map { timecode($0.start).map { String(format: "%02d", $0) }.joined() } ?? "00000000"
        let fields: [(String, Int)] = [
            ("850", 3), ("STL\(framesPerSecond).01", 8), ("1", 1), ("00", 2), (Self.languageCode(transcript.language), 2),
            ("", 32), ("", 32), ("", 32), ("", 32), ("Capforge", 32), ("", 32), ("", 16),
            (date(created), 6), (date(created), 6), ("00", 2), (String(format: "%05d", blocks), 5), (String(format: "%05d", subtitles), 5),
            ("001", 3), (String(format: "%02d", Self.columns), 2), ("23", 2), ("1", 1), ("00000000", 8), (firstIn, 8), ("1", 1), ("1", 1),
            ("", 3), ("", 32), ("", 32), ("", 32), ("", 75),
        ]
        var bytes: [UInt8] = []
        for (value, width) in fields { bytes += Array(value.utf8.prefix(width)) + Array(repeating: 0x20, count: max(0, width - value.utf8.count)) }
        let user = Array(TierSummary(transcript: transcript).lines.joined(separator: "; ").utf8.filter { (0x20...0x7E).contains($0) }.prefix(576))
        return bytes + user + Array(repeating: 0x20, count: 576 - user.count)
    }

    /// A cue's TTI blocks: one, or several sharing its number when the text is longer than a
    /// block holds (extension block numbers 0, 1, …, the last 0xFF).
    private func tti(number: Int, start: Int, end: Int, lines: [String], comment: Bool, unsupported: inout Set<Character>) -> [[UInt8]] {
        var text: [UInt8] = []
        for (index, line) in lines.enumerated() {
            if index > 0 { text.append(0x8A) }
            text += ISO6937.encode(line, unsupported: &unsupported)
        }
        let pieces = stride(from: 0, to: max(1, text.count), by: Self.textBytes).map { Array(text[$0..<min(text.count, $0 + Self.textBytes)]) }
        return pieces.enumerated().map { index, piece in
            var block: [UInt8] = [0, UInt8(number & 0xFF), UInt8(number >> 8 & 0xFF), index == pieces.count - 1 ? 0xFF : UInt8(index), 0]
            block += timecode(start).map(UInt8.init) + timecode(end).map(UInt8.init)
            block += [UInt8(max(1, 24 - lines.count)), 2, comment ? 1 : 0]
            return block + piece + Array(repeating: 0x8F, count: Self.textBytes - piece.count)
        }
    }

    /// Hours, minutes, seconds, frames.
    private func timecode(_ milliseconds: Int) -> [Int] {
        let fps = framesPerSecond
        let frames = Int((Double(max(0, milliseconds)) * Double(fps) / 1000).rounded())
        return [min(99, frames / (3600 * fps)), frames / (60 * fps) % 60, frames / fps % 60, frames % fps]
    }

    /// Tech 3264's language codes (Appendix 3) for the languages Capforge captions most; "00"
    /// (unknown) otherwise.
    static func languageCode(_ language: Language) -> String {
        let codes = ["da": "07", "de": "08", "en": "09", "es": "0A", "fr": "0F", "it": "15", "nl": "1D", "no": "1E", "pl": "20", "pt": "21",
                     "fi": "27", "sv": "28", "ru": "56", "ja": "69", "ko": "6B", "zh": "75", "ar": "7F", "el": "57", "tr": "5A"]
        return codes[language.code] ?? "00"
    }
}

/// ISO 6937, the code page STL's CCT "00" names: ASCII, then a diacritic byte before its letter.
enum ISO6937 {
    static let diacritics: [Unicode.Scalar: UInt8] = [
        "\u{0300}": 0xC1, "\u{0301}": 0xC2, "\u{0302}": 0xC3, "\u{0303}": 0xC4, "\u{0304}": 0xC5, "\u{0306}": 0xC6, "\u{0307}": 0xC7,
        "\u{0308}": 0xC8, "\u{030A}": 0xCA, "\u{0327}": 0xCB, "\u{030B}": 0xCD, "\u{0328}": 0xCE, "\u{030C}": 0xCF,
    ]
    static let singles: [Character: UInt8] = [
        "¡": 0xA1, "¢": 0xA2, "£": 0xA3, "¥": 0xA5, "§": 0xA7, "‘": 0xA9, "“": 0xAA, "«": 0xAB, "←": 0xAC, "↑": 0xAD, "→": 0xAE, "↓": 0xAF,
        "°": 0xB0, "±": 0xB1, "²": 0xB2, "³": 0xB3, "×": 0xB4, "µ": 0xB5, "¶": 0xB6, "·": 0xB7, "÷": 0xB8, "’": 0xB9, "”": 0xBA, "»": 0xBB,
        "¼": 0xBC, "½": 0xBD, "¾": 0xBE, "¿": 0xBF, "—": 0xD0, "¹": 0xD1, "®": 0xD2, "©": 0xD3, "™": 0xD4, "♪": 0xD5, "¬": 0xD6, "¦": 0xD7,
        "Ω": 0xE0, "Æ": 0xE1, "Ð": 0xE2, "ª": 0xE3, "Ħ": 0xE4, "Ĳ": 0xE6, "Ŀ": 0xE7, "Ł": 0xE8, "Ø": 0xE9, "Œ": 0xEA, "º": 0xEB, "Þ": 0xEC,
        "Ŧ": 0xED, "Ŋ": 0xEE, "ŉ": 0xEF, "ĸ": 0xF0, "æ": 0xF1, "đ": 0xF2, "ð": 0xF3, "ħ": 0xF4, "ı": 0xF5, "ĳ": 0xF6, "ŀ": 0xF7, "ł": 0xF8,
        "ø": 0xF9, "œ": 0xFA, "ß": 0xFB, "þ": 0xFC, "ŧ": 0xFD, "ŋ": 0xFE, "\u{00A0}": 0xA0, "–": 0x2D, "…": 0x2E,
    ]

    /// The bytes of `text`; what the code page lacks becomes "?" and is added to `unsupported`.
    static func encode(_ text: String, unsupported: inout Set<Character>) -> [UInt8] {
        var bytes: [UInt8] = []
        for character in text {
            if let ascii = character.asciiValue, (0x20...0x7E).contains(ascii) {
                bytes.append(ascii)
            } else if let single = singles[character] {
                // A dash and an ellipsis have no code here: their nearest ASCII stands in.
                bytes += character == "…" ? [0x2E, 0x2E, 0x2E] : [single]
            } else {
                let parts = Array(String(character).decomposedStringWithCanonicalMapping.unicodeScalars)
                if parts.count == 2, parts[0].isASCII, let base = UInt8(exactly: parts[0].value),
                   let mark = diacritics[parts[1]] {
                    bytes += [mark, base]
                } else {
                    unsupported.insert(character)
                    bytes.append(0x3F)
                }
            }
        }
        return bytes
    }
}
