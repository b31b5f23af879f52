import CapforgeCore

/// Text compared by its words in order, whatever the spelling of case and punctuation: the
/// cues of a subtitle file or the words of a transcript against the words a recogniser heard.
enum TextMatching {
    /// Traceback memory bound (bytes): the band narrows for long texts to stay under it.
    static let maxCells = 64_000_000

    /// Lower-case letters and digits; apostrophes join ("don't" is "dont"); a character of a
    /// script written without spaces is a token of its own (the recogniser's pieces are smaller
    /// than words there, and differ from a subtitler's).
    static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        func flush() {
            if !current.isEmpty { tokens.append(current) }
            current = ""
        }
        for character in text.lowercased() {
            if UnspacedScript.contains(character) {
                flush()
                if character.isLetter || character.isNumber { tokens.append(String(character)) }
            } else if character.isLetter || character.isNumber {
                current.append(character)
            } else if character != "'" && character != "\u{2019}" {
                flush()
            }
        }
        flush()
        return tokens
    }

    /// Index pairs of a longest common subsequence of `a` and `b`, searched within a band about
    /// the line from (0, 0) to (a.count, b.count).
    static func commonSubsequence(_ a: [String], _ b: [String]) -> [(Int, Int)] {
        let n = a.count, m = b.count
        // A band narrower than a few dozen tokens would miss the path: texts that long go unmatched.
        guard n > 0, m > 0, maxCells / n / 2 >= 32 else { return [] }
        let width = min(m, maxCells / n / 2)
        func band(_ i: Int) -> (Int, Int) {
            let centre = Int((Double(i) * Double(m) / Double(n)).rounded())
            return (max(1, centre - width), min(m, centre + width))
        }
        // Interned tokens compare as integers.
        var ids: [String: Int32] = [:]
        let x = a.map { token in ids[token] ?? { ids[token] = Int32(ids.count); return Int32(ids.count - 1) }() }
        let y = b.map { token in ids[token] ?? { ids[token] = Int32(ids.count); return Int32(ids.count - 1) }() }
        // Row i's scores over 0...m; cells outside a row's band stay unreachable.
        let unreachable = Int32.min / 2
        var previous = [Int32](repeating: 0, count: m + 1)
        var current = [Int32](repeating: unreachable, count: m + 1)
        var previousBand = (1, m)
        // 0: match, 1: from above (skip a[i]), 2: from the left (skip b[j]).
        var moves: [[UInt8]] = []
        moves.reserveCapacity(n)
        for i in 1...n {
            let (lo, hi) = band(i)
            current[lo - 1] = lo == 1 ? 0 : unreachable
            var row = [UInt8](repeating: 1, count: hi - lo + 1)
            for j in lo...hi {
                let up = i == 1 || (previousBand.0...previousBand.1).contains(j) ? previous[j] : unreachable
                let left = current[j - 1]
                var best = up, move: UInt8 = 1
                if left > best { best = left; move = 2 }
                if x[i - 1] == y[j - 1] {
                    let diagonal = i == 1 || j == 1 || (previousBand.0...previousBand.1).contains(j - 1) ? previous[j - 1] : unreachable
                    if diagonal + 1 > best { best = diagonal + 1; move = 0 }
                }
                current[j] = best
                row[j - lo] = move
            }
            moves.append(row)
            swap(&previous, &current)
            for j in lo...hi { current[j] = unreachable }
            if lo > 1 { current[lo - 1] = unreachable }
            previousBand = (lo, hi)
        }
        var pairs: [(Int, Int)] = []
        var i = n, j = band(n).1
        while i > 0 && j > 0 {
            let (lo, hi) = band(i)
            guard j >= lo && j <= hi else { j < lo ? (i -= 1) : (j -= 1); continue }
            switch moves[i - 1][j - lo] {
            case 0:
                pairs.append((i - 1, j - 1))
                i -= 1
                j -= 1
            case 2: j -= 1
            default: i -= 1
            }
        }
        return pairs.reversed()
    }

    /// Indices into `pairs` of the matches in runs of two or more: a lone match is as likely a
    /// common word met by chance.
    static func inRuns(_ pairs: [(Int, Int)]) -> [Int] {
        pairs.indices.filter { index in
            (index > 0 && pairs[index - 1] == (pairs[index].0 - 1, pairs[index].1 - 1))
                || (index + 1 < pairs.count && pairs[index + 1] == (pairs[index].0 + 1, pairs[index].1 + 1))
        }
    }
}
