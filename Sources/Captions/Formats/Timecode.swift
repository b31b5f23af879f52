/// Subtitle time stamps: formatting for each writer, and one forgiving parser for readers.
enum Timecode {
    /// No subtitle file runs for six weeks (a month's stream, or a stress test's 1.5 million
    /// cues, stays within it): a time past this is damage or an attack, refused before any
    /// arithmetic that could overflow.
    static let limitMilliseconds = 3_600_000_000
    static let limitSeconds = Double(limitMilliseconds) / 1000
    static let limitName = "1000 hours"

    /// `HH:MM:SS<mark>mmm` for SRT (`,`) and WebVTT (`.`).
    static func milliseconds(_ ms: Int, mark: Character) -> String {
        let ms = max(0, ms)
        return "\(pad(ms / 3_600_000, 2)):\(pad(ms / 60_000 % 60, 2)):\(pad(ms / 1000 % 60, 2))\(mark)\(pad(ms % 1000, 3))"
    }

    /// `H:MM:SS.cc` for ASS, rounded to the nearest centisecond.
    static func centiseconds(_ ms: Int) -> String {
        let cs = (max(0, ms) + 5) / 10
        return "\(cs / 360_000):\(pad(cs / 6000 % 60, 2)):\(pad(cs / 100 % 60, 2)).\(pad(cs % 100, 2))"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Reads `[H:]MM:SS[.,]fraction` with any number of hour digits and 1–9 fraction digits;
    /// nil when the text is not a time.
    static func parse<S: StringProtocol>(_ text: S) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else { return nil }
        let secondsPart = parts[parts.count - 1]
        let split = secondsPart.split(omittingEmptySubsequences: false) { $0 == "," || $0 == "." }
        guard split.count <= 2, let seconds = number(split[0], maxDigits: 2), seconds < 60 else { return nil }
        var fraction = 0
        if split.count == 2 {
            let digits = split[1]
            guard (1...9).contains(digits.count), let value = number(digits, maxDigits: 9) else { return nil }
            // Scale to milliseconds whatever the precision: "5" is 500 ms, "5000" is 500 ms.
            let scaled = Double(value) / pow10(digits.count) * 1000
            fraction = Int(scaled.rounded())
        }
        guard let minutes = number(parts[parts.count - 2], maxDigits: 2), minutes < 60 else { return nil }
        var hours = 0
        if parts.count == 3 {
            guard let value = number(parts[0], maxDigits: 4) else { return nil }
            hours = value
        }
        return ((hours * 60 + minutes) * 60 + seconds) * 1000 + fraction
    }

    private static func number<S: StringProtocol>(_ text: S, maxDigits: Int) -> Int? {
        guard !text.isEmpty, text.count <= maxDigits, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    private static func pow10(_ exponent: Int) -> Double {
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }
}
