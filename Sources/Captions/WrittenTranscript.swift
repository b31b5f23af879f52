import CapforgeCore
import Foundation

/// A transcript or script the user has (`caption --transcript`): its words exactly as written,
/// punctuation, names and casing kept, each with the line it is on.
public struct WrittenTranscript: Sendable, Equatable {
    public struct Word: Sendable, Equatable {
        public var text: String
        /// 1-based.
        public var line: Int
        /// Within brackets: a sound or speaker description ("[applause]", "(laughs)"), not speech.
        public var isDescription = false
    }

    public let words: [Word]

    /// A transcript of a day's speech is a few megabytes; more is not a transcript.
    public static let maxBytes = 32_000_000

    /// Words are what spaces separate; text written without spaces (Japanese, Chinese, Thai) is
    /// cut at the word starts ICU's segmentation finds there, its punctuation kept with the word
    /// before (an opening bracket or quote with the word after).
    public init(text: String) {
        var words: [Word] = []
        var pendingOpening = ""
        for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            for chunk in line.split(whereSeparator: \.isWhitespace) {
                for (index, piece) in Self.pieces(of: String(chunk)).enumerated() {
                    if piece.allSatisfy(Self.isOpening) {
                        pendingOpening += piece
                    } else if index > 0, pendingOpening.isEmpty, !piece.contains(where: { $0.isLetter || $0.isNumber }) {
                        // Written against the word before, without a space.
                        words[words.count - 1].text += piece
                    } else {
                        words.append(Word(text: pendingOpening + piece, line: number + 1))
                        pendingOpening = ""
                    }
                }
            }
        }
        if !pendingOpening.isEmpty {
            if words.isEmpty { words.append(Word(text: pendingOpening, line: 1)) } else { words[words.count - 1].text += pendingOpening }
        }
        var depth = 0
        for index in words.indices {
            // An unclosed bracket holds no more than its line.
            if index > 0, words[index].line != words[index - 1].line { depth = 0 }
            let opened = depth > 0 || words[index].text.first.map(Self.opensDescription) == true
            for character in words[index].text {
                if Self.opensDescription(character) { depth += 1 } else if Self.closesDescription(character) { depth = max(0, depth - 1) }
            }
            words[index].isDescription = opened
        }
        self.words = words
    }

    /// A transcript file's bytes (`path` names it in errors): UTF-8 (with or without a byte
    /// order mark), UTF-16 with one, or Windows-1252.
    public static func read(_ data: Data, path: String) throws -> WrittenTranscript {
        let text: String
        do {
            text = try TextDecoding.decode(data).text
        } catch {
            throw TranscriptFileError.notText(path: path, reason: "\(error)")
        }
        let transcript = WrittenTranscript(text: text)
        guard transcript.words.contains(where: { !TextMatching.tokens($0.text).isEmpty }) else { throw TranscriptFileError.noWords(path: path) }
        return transcript
    }

    /// A chunk between spaces, cut where ICU finds words when it holds unspaced text.
    private static func pieces(of chunk: String) -> [String] {
        guard chunk.contains(where: UnspacedScript.contains), let starts = try? WordSegmentation.wordStarts(in: chunk) else { return [chunk] }
        var pieces: [String] = []
        for (offset, character) in chunk.enumerated() {
            if starts.contains(offset) || pieces.isEmpty { pieces.append("") }
            pieces[pieces.count - 1].append(character)
        }
        return pieces
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
