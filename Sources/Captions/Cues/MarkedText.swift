import CapforgeCore

/// A run of a caption line, marked or not (low-confidence words, for the ASS colouring and the
/// report's highlighting).
public struct MarkedText: Sendable, Codable, Equatable {
    public var text: String
    public var marked: Bool

    public init(text: String, marked: Bool) {
        self.text = text
        self.marked = marked
    }
}

extension Cue {
    /// Each line as runs, the words `isMarked` picks in runs of their own. Words are found in
    /// the line in order; text the words do not account for is an unmarked run.
    public func markedLines(_ isMarked: (Word) -> Bool) -> [[MarkedText]] {
        var words = self.words[...]
        return lines.map { line in
            var runs: [MarkedText] = []
            var rest = line[...]
            while let word = words.first {
                let leading = rest.prefix { $0.isWhitespace }
                let candidate = rest.dropFirst(leading.count)
                guard !word.text.isEmpty, candidate.hasPrefix(word.text) else { break }
                if !leading.isEmpty { runs.append(MarkedText(text: String(leading), marked: false)) }
                runs.append(MarkedText(text: word.text, marked: isMarked(word)))
                rest = candidate.dropFirst(word.text.count)
                words.removeFirst()
            }
            if !rest.isEmpty { runs.append(MarkedText(text: String(rest), marked: false)) }
            return runs
        }
    }
}
