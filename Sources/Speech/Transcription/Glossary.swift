import CapforgeCore
import Foundation

/// Vocabulary hints (`--vocab FILE`, one term per line): given to Whisper as the prompt of a
/// second decoding that may respell what the first heard, and applied after recognition in
/// every tier to fix the case and spelling of known terms.
public struct Glossary: Sendable, Equatable, Hashable, Codable {
    public var terms: [String]

    public init(terms: [String]) {
        self.terms = terms.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Longest term: a name or a phrase, not a paragraph (libwhisper's tokenizer overflows its
    /// stack on a 30 KB line).
    public static let maxTermCharacters = 100
    /// Whisper reads at most 224 prompt tokens; this many characters stay well inside that.
    public static let maxPromptCharacters = 600

    public init(contentsOf url: URL) throws {
        let text = try UserFile.text(url, what: "vocabulary file", limit: 1_000_000)
        let lines = text.components(separatedBy: .newlines)
        if let (number, line) = lines.enumerated().first(where: { $0.element.count > Self.maxTermCharacters }) {
            throw GlossaryError.termTooLong(path: url.path, line: number + 1, characters: line.count)
        }
        self.init(terms: lines)
    }

    /// The terms that fit in Whisper's prompt, in file order; the rest still fix spelling.
    public var promptTerms: [String] {
        var length = "Glossary: .".count
        return Array(terms.prefix { term in
            length += term.count + 2
            return length <= Self.maxPromptCharacters
        })
    }

    /// A prompt that makes Whisper prefer these spellings.
    public var prompt: String? { terms.isEmpty ? nil : "Glossary: " + promptTerms.joined(separator: ", ") + "." }

    /// Replaces words whose letters match a word of a term (ignoring case and punctuation) with
    /// the term's spelling, keeping the word's surrounding punctuation.
    public func apply(to words: [Word]) -> [Word] {
        let spellings = terms.flatMap { $0.split(separator: " ").map(String.init) }
        let known = Dictionary(spellings.map { ($0.spellingKey, $0) }, uniquingKeysWith: { first, _ in first })
        guard !known.isEmpty else { return words }
        return words.map { word in
            let core = word.text.trimmingCharacters(in: .punctuationCharacters)
            guard !core.isEmpty, let term = known[core.spellingKey], let range = word.text.range(of: core) else { return word }
            var fixed = word
            fixed.text.replaceSubrange(range, with: term)
            return fixed
        }
    }

    /// Whether `word` is (a word of) one of the terms, ignoring case and punctuation.
    public func knows(_ word: Word) -> Bool {
        let core = word.text.spellingKey
        return !core.isEmpty && terms.contains { $0.split(separator: " ").contains { String($0).spellingKey == core } }
    }

}

public enum GlossaryError: Error, CustomStringConvertible, Equatable {
    case termTooLong(path: String, line: Int, characters: Int)

    public var description: String {
        switch self {
        case .termTooLong(let path, let line, let characters):
            return "vocabulary file \(path), line \(line): \(characters) characters; a term is one name or phrase per line, at most \(Glossary.maxTermCharacters) characters"
        }
    }
}
