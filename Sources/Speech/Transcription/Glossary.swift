import CapforgeCore
import Foundation

/// Vocabulary hints (`--vocab FILE`, one term per line): given to Whisper as its initial prompt,
/// and applied after recognition in every tier to fix the case and spelling of known terms.
public struct Glossary: Sendable, Equatable, Hashable, Codable {
    public var terms: [String]

    public init(terms: [String]) {
        self.terms = terms.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    public init(contentsOf url: URL) throws {
        self.init(terms: try String(contentsOf: url, encoding: .utf8).components(separatedBy: .newlines))
    }

    /// A prompt that makes Whisper prefer these spellings.
    public var prompt: String? { terms.isEmpty ? nil : "Glossary: " + terms.joined(separator: ", ") + "." }

    /// Replaces words whose letters match a word of a term (ignoring case and punctuation) with
    /// the term's spelling, keeping the word's surrounding punctuation.
    public func apply(to words: [Word]) -> [Word] {
        let spellings = terms.flatMap { $0.split(separator: " ").map(String.init) }
        let known = Dictionary(spellings.map { (Self.key($0), $0) }, uniquingKeysWith: { first, _ in first })
        guard !known.isEmpty else { return words }
        return words.map { word in
            let core = word.text.trimmingCharacters(in: .punctuationCharacters)
            guard !core.isEmpty, let term = known[Self.key(core)], let range = word.text.range(of: core) else { return word }
            var fixed = word
            fixed.text.replaceSubrange(range, with: term)
            return fixed
        }
    }

    private static func key(_ text: String) -> String {
        text.lowercased().filter { $0.isLetter || $0.isNumber }
    }
}
