import Foundation

/// Text for a terminal. A literal is the program's own: its line breaks and tabs lay the text
/// out. Every value interpolated into it (a file name, a subtitle's words, an error quoting
/// either) is data: each control character in it, line breaks included, is shown escaped
/// (`\u{1B}`), so it can neither act on the terminal nor break a row. A block of the program's
/// own lines made elsewhere (a table, a report) goes in as `\(lines: text)`: its line breaks
/// and tabs stay, any other control is escaped.
public struct TerminalText: ExpressibleByStringInterpolation, Sendable {
    public private(set) var text: String

    /// What lays text out; a terminal acts on no other control character Capforge writes in text.
    static let layout: Set<Unicode.Scalar> = ["\n", "\t"]

    public init(stringLiteral value: String) {
        text = ControlCharacters.escaped(value, keeping: Self.layout)
    }

    /// The program's own lines (a table, a report): line breaks and tabs kept.
    public init(lines: String) {
        text = ControlCharacters.escaped(lines, keeping: Self.layout)
    }

    public init(stringInterpolation: StringInterpolation) {
        text = stringInterpolation.text
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""

        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity)
        }

        public mutating func appendLiteral(_ literal: String) {
            text += ControlCharacters.escaped(literal, keeping: TerminalText.layout)
        }

        /// A value: every control character in what it says escaped.
        public mutating func appendInterpolation(_ value: some Any) {
            text += ControlCharacters.escaped(String(describing: value))
        }

        public mutating func appendInterpolation(_ value: TerminalText) {
            text += value.text
        }

        public mutating func appendInterpolation(lines: String) {
            text += TerminalText(lines: lines).text
        }
    }
}

/// Standard output or standard error as Capforge writes to them: `TerminalText`, the few
/// control sequences Capforge draws its progress display with (which no text can spell), and
/// JSON with every control character escaped the JSON way. Everything the tool prints goes
/// through one of the two.
public struct Terminal: Sendable {
    public static let standardOutput = Terminal(FileHandle.standardOutput)
    public static let standardError = Terminal(FileHandle.standardError)

    /// Capforge's own cursor movements and colours.
    public enum Control: String, Sendable {
        /// Back to the start of the line, cleared: a progress line drawn again in place.
        case clearLine = "\r\u{1B}[2K"
        /// Up a line, cleared: the live display taken down before it is drawn again.
        case clearLineAbove = "\u{1B}[1A\u{1B}[2K"
        case green = "\u{1B}[32m", red = "\u{1B}[31m", grey = "\u{1B}[90m", plain = "\u{1B}[0m"
    }

    public enum Part: Sendable {
        case text(TerminalText)
        case control(Control)
    }

    private let handle: FileHandle

    public init(_ handle: FileHandle) {
        self.handle = handle
    }

    /// `text` and a line break.
    public func line(_ text: TerminalText) {
        write(.text(text), .text("\n"))
    }

    public func write(_ parts: Part...) {
        let bytes = parts.reduce(into: "") { bytes, part in
            switch part {
            case .text(let text): bytes += text.text
            case .control(let control): bytes += control.rawValue
            }
        }
        handle.write(Data(bytes.utf8))
    }

    /// A JSON document or event and a line break.
    public func json(_ text: String) {
        handle.write(Data((ControlCharacters.jsonEscaped(text) + "\n").utf8))
    }
}
