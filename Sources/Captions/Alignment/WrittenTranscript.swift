import CapforgeCore
import Foundation

/// A transcript or script the user has (`caption --transcript`): its words exactly as written,
/// punctuation, names and casing kept, each with the line it is on. Formatting markup it may
/// carry from a subtitle file (`{\an8}`, `<i>`, `<font color=…>`) is not words: it is left out,
/// and said (`notes`).
public struct WrittenTranscript: Sendable, Equatable {
    public struct Word: Sendable, Equatable {
        public var text: String
        /// 1-based.
        public var line: Int
        /// Within brackets: a sound or speaker description ("[applause]", "(laughs)"), not speech.
        public var isDescription = false
    }

    public let words: [Word]
    /// False when the text holds more than the `wordLimit` words it was read with: `words` are
    /// the first of them, and the rest was not looked at.
    public let isWhole: Bool
    /// What was left out of the words or cut, a sentence each, for the file's warnings.
    public let notes: [String]

    /// A transcript of a day's speech is a few megabytes; more is not a transcript.
    public static let maxBytes = 32_000_000
    /// Characters without a space past which a run is cut (after its last punctuation, if
    /// any): no word is longer, and text written without spaces is segmented a piece at a time.
    static let longestRun = 256
    /// Characters a piece of markup may span: a `<` or `{` that is not closed by then is text.
    static let longestMarkup = 256

    /// Words are what spaces separate; text written without spaces (Japanese, Chinese, Thai) is
    /// cut at the word starts ICU's segmentation finds there, its punctuation kept with the word
    /// before (an opening bracket or quote with the word after). Reading stops past
    /// `wordLimit` words, so a huge text costs no more than its first words.
    public init(text: String, wordLimit: Int = .max) {
        let (plain, markup) = Self.withoutMarkup(text)
        var reader = WordReader(limit: wordLimit)
        var line = 1
        var run: String.Index?
        var runLength = 0
        // The line of the first run cut that is not text written without spaces (where runs are
        // sentences, which ICU cuts into words anyway).
        var cutLine: Int?
        var index = plain.startIndex
        while index < plain.endIndex, !reader.isFull {
            let character = plain[index]
            let next = plain.index(after: index)
            if character.isWhitespace {
                if let start = run { reader.add(plain[start..<index], line: line) }
                run = nil
                if character.isNewline { line += 1 }
            } else if let start = run {
                runLength += 1
                if runLength == Self.longestRun {
                    // Cut after the run's last punctuation in its second half, else here.
                    let window = plain[start..<next]
                    let cut = window.dropFirst(Self.longestRun / 2).lastIndex { !$0.isLetter && !$0.isNumber }.map(window.index(after:)) ?? next
                    reader.add(plain[start..<cut], line: line)
                    run = cut
                    runLength = plain.distance(from: cut, to: next)
                    if !UnspacedScript.contains(character) { cutLine = cutLine ?? line }
                }
            } else {
                run = index
                runLength = 1
            }
            index = next
        }
        if let start = run, !reader.isFull { reader.add(plain[start...], line: line) }
        isWhole = !reader.isFull
        words = reader.finished()
        var notes: [String] = []
        if let markup {
            let first = markup.first.count > 40 ? markup.first.prefix(40) + "…" : markup.first
            notes.append("transcript line \(markup.line): formatting markup \(first) left out"
                + (markup.count > 1 ? " (\(markup.count) pieces of markup in all: override blocks {\\…}, tags <…>)" : "")
                + ": the captions show the transcript's words, in the caption style")
        }
        if let cutLine {
            notes.append("transcript line \(cutLine): more than \(Self.longestRun) characters without a space, cut into words of at most \(Self.longestRun)")
        }
        self.notes = notes
    }

    /// A transcript file's bytes (`path` names it in errors): UTF-8 (with or without a byte
    /// order mark), UTF-16 with one, or Windows-1252. Only its first `wordLimit` words are read
    /// (`isWhole` says whether there are more).
    public static func read(_ data: Data, path: String, wordLimit: Int = .max) throws -> WrittenTranscript {
        let text: String
        do {
            text = try TextDecoding.decode(data).text
        } catch {
            throw TranscriptFileError.notText(path: path, reason: "\(error)")
        }
        let transcript = WrittenTranscript(text: text, wordLimit: wordLimit)
        guard !transcript.isWhole || transcript.words.contains(where: { !TextMatching.tokens($0.text).isEmpty }) else {
            throw TranscriptFileError.noWords(path: path)
        }
        return transcript
    }

    /// Words in the making, a run between spaces at a time, until there are more than `limit`.
    private struct WordReader {
        let limit: Int
        private(set) var words: [Word] = []
        private var pendingOpening = ""

        init(limit: Int) {
            self.limit = limit
        }

        var isFull: Bool { words.count > limit }

        mutating func add(_ run: Substring, line: Int) {
            for (index, piece) in WrittenTranscript.pieces(of: run).enumerated() {
                if piece.allSatisfy(WrittenTranscript.isOpening) {
                    pendingOpening += piece
                } else if index > 0, pendingOpening.isEmpty, !piece.contains(where: { $0.isLetter || $0.isNumber }) {
                    // Written against the word before, without a space.
                    words[words.count - 1].text += piece
                } else {
                    words.append(Word(text: pendingOpening + piece, line: line))
                    pendingOpening = ""
                }
            }
        }

        /// The first `limit` words, each marked when it is within brackets.
        mutating func finished() -> [Word] {
            if !pendingOpening.isEmpty {
                if words.isEmpty { words.append(Word(text: pendingOpening, line: 1)) } else { words[words.count - 1].text += pendingOpening }
            }
            var words = Array(self.words.prefix(limit))
            var depth = 0
            for index in words.indices {
                // An unclosed bracket holds no more than its line.
                if index > 0, words[index].line != words[index - 1].line { depth = 0 }
                let opened = depth > 0 || words[index].text.first.map(WrittenTranscript.opensDescription) == true
                for character in words[index].text {
                    if WrittenTranscript.opensDescription(character) { depth += 1 } else if WrittenTranscript.closesDescription(character) { depth = max(0, depth - 1) }
                }
                words[index].isDescription = opened
            }
            return words
        }
    }

    /// A run between spaces, cut where ICU finds words when it holds unspaced text.
    private static func pieces(of run: Substring) -> [String] {
        guard run.contains(where: UnspacedScript.contains), let starts = try? WordSegmentation.wordStarts(in: String(run)) else { return [String(run)] }
        var pieces: [String] = []
        for (offset, character) in run.enumerated() {
            if starts.contains(offset) || pieces.isEmpty { pieces.append("") }
            pieces[pieces.count - 1].append(character)
        }
        return pieces
    }

    /// Formatting markup, as a subtitle file's text carries it: an ASS override block (`{\an8}`,
    /// which libass obeys in SRT too), an HTML or WebVTT tag (`<i>`, `</font>`, `<v Anna>`), a
    /// WebVTT timestamp (`<00:01.500>`). Where the one starting at `start` ends, or nil.
    private static func markupEnd(_ bytes: [UInt8], at start: Int) -> Int? {
        guard start + 2 < bytes.count else { return nil }
        let open = bytes[start], next = bytes[start + 1]
        let close: UInt8
        let allowed: (UInt8) -> Bool
        switch (open, next) {
        case (UInt8(ascii: "{"), UInt8(ascii: "\\")):
            close = UInt8(ascii: "}")
            allowed = { $0 != UInt8(ascii: "{") }
        case (UInt8(ascii: "<"), _) where isASCIILetter(next) || (next == UInt8(ascii: "/") && isASCIILetter(bytes[start + 2])):
            close = UInt8(ascii: ">")
            allowed = { $0 != UInt8(ascii: "<") }
        case (UInt8(ascii: "<"), UInt8(ascii: "0")...UInt8(ascii: "9")):
            close = UInt8(ascii: ">")
            allowed = { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }
        default:
            return nil
        }
        var end = start + 1
        while end < bytes.count, end - start < longestMarkup, bytes[end] != close {
            guard bytes[end] != 0x0A, bytes[end] != 0x0D, allowed(bytes[end]) else { return nil }
            end += 1
        }
        return end < bytes.count && bytes[end] == close ? end + 1 : nil
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    /// The text without its markup, and the first piece left out, its line and how many there were.
    private static func withoutMarkup(_ text: String) -> (String, (first: String, line: Int, count: Int)?) {
        var text = text
        // Looked for with memchr: most transcripts have no markup, and a large one is not scanned byte by byte.
        let opens = text.withUTF8 { utf8 in
            utf8.baseAddress.map { memchr($0, Int32(UInt8(ascii: "<")), utf8.count) != nil || memchr($0, Int32(UInt8(ascii: "{")), utf8.count) != nil } ?? false
        }
        guard opens else { return (text, nil) }
        let bytes = Array(text.utf8)
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        var found: (first: String, line: Int, count: Int)?
        var line = 1
        var index = 0
        while index < bytes.count {
            if let end = markupEnd(bytes, at: index) {
                found = found.map { ($0.first, $0.line, $0.count + 1) } ?? (String(decoding: bytes[index..<end], as: UTF8.self), line, 1)
                index = end
                continue
            }
            if bytes[index] == 0x0A { line += 1 }
            kept.append(bytes[index])
            index += 1
        }
        return found == nil ? (text, nil) : (String(decoding: kept, as: UTF8.self), found)
    }

    private static func opensDescription(_ character: Character) -> Bool { "([（［【".contains(character) }
    private static func closesDescription(_ character: Character) -> Bool { ")]）］】".contains(character) }

    private static func isOpening(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy {
            [.openPunctuation, .initialPunctuation].contains($0.properties.generalCategory)
        }
    }
}

public enum TranscriptFileError: Error, CustomStringConvertible, Equatable {
    case notText(path: String, reason: String)
    case noWords(path: String)

    public var description: String {
        switch self {
        case .notText(let path, let reason): return "transcript \(path) is not text in a known encoding (\(reason)); save it as UTF-8 text"
        case .noWords(let path): return "transcript \(path) has no words"
        }
    }
}
