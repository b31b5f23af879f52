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
        let ref = words(reference), hyp = words(hypothesis)
        var row = Array(0...hyp.count)
        for i in 1...max(1, ref.count) where !ref.isEmpty {
            var next = [i] + Array(repeating: 0, count: hyp.count)
            for j in stride(from: 1, through: hyp.count, by: 1) {
                next[j] = min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (ref[i - 1] == hyp[j - 1] ? 0 : 1))
            }
            row = next
        }
        return (ref.isEmpty ? hyp.count : row[hyp.count], ref.count)
    }
}
