import Foundation

/// Word error rate after the normalisation the notes use: lowercase, punctuation to spaces,
/// apostrophes dropped, "mr" read as "mister".
public enum WER {
    public static func words(_ text: String) -> [String] {
        String(text.lowercased().replacingOccurrences(of: "'", with: "").map { $0.isLetter || $0.isNumber ? $0 : " " })
            .split(separator: " ").map { $0 == "mr" ? "mister" : String($0) }
    }

    /// (word edits, reference words).
    public static func errors(reference: String, hypothesis: String) -> (edits: Int, words: Int) {
        let ref = words(reference)
        return (editDistance(ref, words(hypothesis)), ref.count)
    }

    /// Insertions, deletions and substitutions turning `reference` into `hypothesis` (for
    /// characters too: a character error rate for scripts without spaces).
    public static func editDistance<T: Equatable>(_ reference: [T], _ hypothesis: [T]) -> Int {
        guard !reference.isEmpty else { return hypothesis.count }
        var row = Array(0...hypothesis.count)
        for i in 1...reference.count {
            var next = [i] + Array(repeating: 0, count: hypothesis.count)
            for j in stride(from: 1, through: hypothesis.count, by: 1) {
                next[j] = min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (reference[i - 1] == hypothesis[j - 1] ? 0 : 1))
            }
            row = next
        }
        return row[hypothesis.count]
    }
}
