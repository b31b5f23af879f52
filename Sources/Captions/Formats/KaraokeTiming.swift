import CapforgeCore

/// When each word of a cue lights up: centiseconds from the cue's start to its first word
/// (`lead`), and each word's share up to the next word's start (the last, to its end or the
/// cue's), rounded on the running total so the sum stays the cue's.
struct KaraokeTiming {
    let lead: Int
    let centiseconds: [Int]
    /// Each word's start in milliseconds, within the cue.
    let starts: [Int]

    init(_ cue: Cue) {
        let starts = cue.words.map { min(max(Int(($0.start * 1000).rounded()), cue.start), cue.end) }
        let sorted = starts.indices.map { starts[...$0].max()! }
        let ends = sorted.indices.map { $0 + 1 < sorted.count ? sorted[$0 + 1] : min(max(Int((cue.words[$0].end * 1000).rounded()), sorted[$0]), cue.end) }
        func cs(_ ms: Int) -> Int { Int((Double(ms - cue.start) / 10).rounded()) }
        lead = sorted.first.map(cs) ?? 0
        centiseconds = sorted.indices.map { cs(ends[$0]) - cs(sorted[$0]) }
        self.starts = sorted
    }
}
