import CapforgeCore

/// Which words two hearings of the same audio share.
enum WordAlignment {
    /// Pairs (index into `words`, index into `heard`) of a longest common subsequence, in order.
    /// Two words pair when their keys are equal and their times lie within `timeTolerance`
    /// seconds. Only such pairs are candidates, so the work and memory grow with the words, not
    /// with their product: the longest chain of candidates increasing in both lists is a longest
    /// increasing subsequence, found by patience sorting. Both lists are in time order.
    static func sharedPairs(
        _ words: [Word], _ heard: [Word], key: (String) -> String, timeTolerance: Double
    ) -> [(word: Int, heard: Int)] {
        let heardKeys = heard.map { key($0.text) }
        var candidates: [(word: Int, heard: Int)] = []
        var lower = 0
        for (i, word) in words.enumerated() {
            let wordKey = key(word.text)
            guard !wordKey.isEmpty else { continue }
            // No word lasts longer than 10 s.
            while lower < heard.count, heard[lower].start < word.start - timeTolerance - 10 { lower += 1 }
            var row: [(word: Int, heard: Int)] = []
            var j = lower
            while j < heard.count, heard[j].start <= word.end + timeTolerance {
                if heardKeys[j] == wordKey, heard[j].end >= word.start - timeTolerance { row.append((i, j)) }
                j += 1
            }
            // Within one word, later partners first: a chain may then take at most one of them.
            candidates += row.reversed()
        }
        var tails: [Int] = []  // tails[k]: the candidate ending the best chain of length k + 1
        var previous = [Int](repeating: -1, count: candidates.count)
        for (c, candidate) in candidates.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if candidates[tails[mid]].heard < candidate.heard { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[c] = tails[low - 1] }
            if low == tails.count { tails.append(c) } else { tails[low] = c }
        }
        var chain: [(word: Int, heard: Int)] = []
        var c = tails.last ?? -1
        while c >= 0 {
            chain.append(candidates[c])
            c = previous[c]
        }
        return chain.reversed()
    }
}
