/// An event's text read the way libass reads it: `{...}` override blocks (an unclosed one runs
/// to the end), `\N` hard and `\n` soft line breaks, `\h` hard spaces, `\{` and `\}` literal
/// braces (libavcodec's decoders write braces so), and plain text.
public struct ASSEventText: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case text
        /// The block's content, without its braces.
        case overrides
        case lineBreak
        case hardSpace
        /// `\{` or `\}`: the brace itself.
        case escapedBrace
    }

    public struct Piece: Equatable, Sendable {
        public var kind: Kind
        /// The piece as written (an override block's braces included), so that pieces joined
        /// give back the event text.
        public var raw: Substring

        public var content: Substring {
            guard kind == .overrides else { return raw }
            return raw.dropFirst().last == "}" ? raw.dropFirst().dropLast() : raw.dropFirst()
        }
    }

    public let pieces: [Piece]

    public init(_ text: String) {
        var pieces: [Piece] = []
        var rest = Substring(text)
        var plainStart = rest.startIndex
        func flushPlain(upTo end: String.Index) {
            if plainStart < end { pieces.append(Piece(kind: .text, raw: text[plainStart..<end])) }
        }
        while let first = rest.first {
            let kind: Kind?
            let length: Int
            if first == "{" {
                kind = .overrides
                length = rest.firstIndex(of: "}").map { rest[...$0].count } ?? rest.count
            } else if first == "\\", let next = rest.dropFirst().first, "Nnh{}".contains(next) {
                kind = next == "h" ? .hardSpace : "{}".contains(next) ? .escapedBrace : .lineBreak
                length = 2
            } else {
                kind = nil
                length = 1
            }
            let end = rest.index(rest.startIndex, offsetBy: length)
            if let kind {
                flushPlain(upTo: rest.startIndex)
                pieces.append(Piece(kind: kind, raw: rest[..<end]))
                plainStart = end
            }
            rest = rest[end...]
        }
        flushPlain(upTo: text.endIndex)
        self.pieces = pieces
    }

    /// Text from libavcodec's decoders of text codecs (SubRip, mov_text, WebVTT): their styling
    /// comes as `{\…}` blocks, and any other brace is the caption's own (libavcodec's encoders
    /// read it so too).
    public init(decodedText text: String) {
        var escaped = ""
        var inOverride = false
        var rest = Substring(text)
        while let first = rest.first {
            if inOverride {
                if first == "}" { inOverride = false }
                escaped.append(first)
            } else if first == "{", rest.dropFirst().first == "\\" {
                inOverride = true
                escaped.append(first)
            } else if first == "{" || first == "}" {
                escaped += "\\" + String(first)
            } else {
                escaped.append(first)
            }
            rest = rest.dropFirst()
        }
        self.init(escaped)
    }

    /// The caption's lines: breaks split them, a hard space is a no-break space, overrides are dropped.
    public var lines: [String] {
        var lines = [""]
        for piece in pieces {
            switch piece.kind {
            case .text: lines[lines.count - 1] += piece.raw
            case .escapedBrace: lines[lines.count - 1] += piece.raw.dropFirst()
            case .hardSpace: lines[lines.count - 1] += "\u{00A0}"
            case .lineBreak: lines.append("")
            case .overrides: break
            }
        }
        return lines
    }

    /// What libass draws, breaks and hard spaces as spaces.
    public var visible: String {
        pieces.reduce(into: "") { result, piece in
            switch piece.kind {
            case .text: result += piece.raw
            case .escapedBrace: result += piece.raw.dropFirst()
            case .hardSpace, .lineBreak: result += " "
            case .overrides: break
            }
        }
    }

    /// The fonts `\fn` overrides ask for.
    public var fontOverrides: [String] {
        pieces.filter { $0.kind == .overrides }.flatMap { piece in
            piece.content.split(separator: "\\").compactMap { tag -> String? in
                guard tag.hasPrefix("fn") else { return nil }
                let name = tag.dropFirst(2).trimmingCharacters(in: .whitespaces)
                return name.isEmpty ? nil : name
            }
        }
    }

    /// Characters that need a glyph, each once: format controls such as the word joiner and whitespace draw nothing.
    public var drawnCharacters: [Character] {
        var seen = Set<Character>()
        return visible.filter { c in
            guard c.unicodeScalars.contains(where: Self.needsGlyph) else { return false }
            return seen.insert(c).inserted
        }
    }

    public static func needsGlyph(_ scalar: Unicode.Scalar) -> Bool {
        let p = scalar.properties
        return !(p.isWhitespace || p.isDefaultIgnorableCodePoint || p.generalCategory == .control || p.generalCategory == .format)
    }

    /// Text made safe for an event: braces would open an override block and a backslash starts a
    /// command (`\N`, `\h`), and ASS has no escape every renderer knows. Braces become their
    /// fullwidth forms and a word joiner after a backslash keeps it literal. A line break (a
    /// notice text may hold one) would end the event's line, and what follows it would be read
    /// as a line of the script: it becomes the event's own break, `\N`.
    public static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "{", with: "\u{FF5B}")
            .replacingOccurrences(of: "}", with: "\u{FF5D}")
            .replacingOccurrences(of: "\\", with: "\\\u{2060}")
            .split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).joined(separator: "\\N")
    }
}
