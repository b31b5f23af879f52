import CapforgeCore
import Foundation

/// Tells a decoder loop from a speaker repeating themselves. Whisper loops on noise, music and
/// at the end of a window: the same phrase again and again, or one token over and over. A
/// person saying "Thank you." four times gives the same text, so text alone cannot decide: a
/// repeated phrase is a loop only where the audio does not back every occurrence with its own
/// burst of sound, at a plausible speaking rate and at a moment of its own.
enum RepetitionGuard {
    /// A phrase of 2+ words repeated this many times in a row is checked against the audio.
    static let phraseRepeats = 3
    /// A single word needs more: "no, no, no" is ordinary speech.
    static let wordRepeats = 5
    /// The same token this many times in a row inside one word ("hahahaha…", "-----") is a
    /// loop. A whole word said again ("word, word, word…", one token each time) is a phrase
    /// of one word, which the audio decides.
    static let tokenRepeats = 5
    static let longestPhrase = 40
    /// Nobody says a word in less than this (centiseconds): a shorter occurrence is a loop's
    /// compressed copy.
    static let shortestWord: Int64 = 10
    /// Token times are coarse: an occurrence may lie this far (centiseconds) from its burst.
    static let burstSlack: Int64 = 15

    /// A phrase of `length` words, `repeats` times in a row from word `start`.
    struct Run: Equatable {
        var start: Int
        var length: Int
        var repeats: Int

        func occurrence(_ i: Int) -> Range<Int> { (start + i * length)..<(start + (i + 1) * length) }
        var words: Range<Int> { start..<(start + length * repeats) }
    }

    /// A loop: the segments holding it, and how many of its occurrences the audio backs (0 for
    /// a token loop); for a repeated phrase, the phrase (spelling keys) and how often it came.
    struct Loop: Equatable {
        var segments: Range<Int>
        var backedOccurrences: Int
        var phrase: [String] = []
        var repeats = 0

        func shifted(by offset: Int) -> Loop {
            var loop = self
            loop.segments = (segments.lowerBound + offset)..<(segments.upperBound + offset)
            return loop
        }
    }

    /// The first loop, or nil when there is none. `bursts`: the audio's, from `LoudnessEnvelope`.
    static func firstLoop(in segments: [DecodedSegment], endOfText: Int32, bursts: [Range<Int64>]) -> Loop? {
        let words = flattened(segments, endOfText: endOfText)
        let keys = words.map { normalisedKey($0.tokens) }
        let phraseLoop = runs(in: keys).lazy.compactMap { run -> Loop? in
            let backed = supported(run, words: words, bursts: bursts)
            guard backed.contains(false) else { return nil }
            return Loop(segments: words[run.start].segment..<(words[run.words.upperBound - 1].segment + 1),
                        backedOccurrences: backed.filter { $0 }.count, phrase: Array(keys[run.occurrence(0)]), repeats: run.repeats)
        }.first
        let tokenLoop = segments.firstIndex { segment in
            WordAssembler.group(segment.tokens, endOfText: endOfText).contains { longestRun(of: $0.map(\.id)) >= tokenRepeats }
        }
            .map { Loop(segments: $0..<($0 + 1), backedOccurrences: 0) }
        switch (phraseLoop, tokenLoop) {
        case (let phrase?, let token?): return token.segments.lowerBound < phrase.segments.lowerBound ? token : phrase
        case (let phrase?, nil): return phrase
        case (nil, let token?): return token
        case (nil, nil): return nil
        }
    }

    /// The most times in a row `segments` say `phrase` (spelling keys; 0 for none).
    static func timesInARow(_ phrase: [String], in segments: [DecodedSegment], endOfText: Int32) -> Int {
        guard !phrase.isEmpty else { return 0 }
        let keys = flattened(segments, endOfText: endOfText).map { normalisedKey($0.tokens) }
        return keys.indices.map { timesInARow(phrase, in: keys, from: $0) }.max() ?? 0
    }

    /// How many times in a row `keys` say `phrase` from `start` on.
    private static func timesInARow(_ phrase: some Collection<String>, in keys: [String], from start: Int) -> Int {
        var times = 0
        while start + (times + 1) * phrase.count <= keys.count,
              keys[(start + times * phrase.count)..<(start + (times + 1) * phrase.count)].elementsEqual(phrase) {
            times += 1
        }
        return times
    }

    /// `segments` with their first run of `phrase` cut to its first `count` occurrences (and, as
    /// `collapsed`, token runs inside a word cut to one token).
    static func trimmed(_ segments: [DecodedSegment], repeating phrase: [String], to count: Int, endOfText: Int32) -> [DecodedSegment] {
        withoutRepeats(segments, endOfText: endOfText) { runs, _, keys in
            guard let run = runs.first(where: { $0.length == phrase.count && keys[$0.occurrence(0)].elementsEqual(phrase) }),
                  count < run.repeats else { return [] }
            return (count..<run.repeats).flatMap { run.occurrence($0) }
        }
    }

    /// The segments with token runs inside a word cut to one token and, in every looping run, only the
    /// occurrences the audio backs (at least the first); special tokens are dropped (they carry
    /// no words) and segments left without words disappear.
    static func collapsed(_ segments: [DecodedSegment], endOfText: Int32, bursts: [Range<Int64>]) -> [DecodedSegment] {
        withoutRepeats(segments, endOfText: endOfText) { runs, words, _ in
            runs.flatMap { run -> [Int] in
                var backed = supported(run, words: words, bursts: bursts)
                guard backed.contains(false) else { return [] }
                if !backed.contains(true) { backed[0] = true }
                return backed.indices.filter { !backed[$0] }.flatMap { run.occurrence($0) }
            }
        }
    }

    /// `segments` with token runs inside a word cut to one token, without the words (indices)
    /// `dropping` picks given their runs of repeats; segments left without words disappear.
    private static func withoutRepeats(
        _ segments: [DecodedSegment], endOfText: Int32,
        dropping: (_ runs: [Run], _ words: [(segment: Int, tokens: [DecodedToken])], _ keys: [String]) -> [Int]
    ) -> [DecodedSegment] {
        var result = segments.map { segment in
            var segment = segment
            segment.tokens = WordAssembler.group(segment.tokens, endOfText: endOfText).flatMap(withoutTokenRuns)
            return segment
        }
        let words = flattened(result, endOfText: endOfText)
        let keys = words.map { normalisedKey($0.tokens) }
        let dropped = Set(dropping(runs(in: keys), words, keys))
        for index in result.indices {
            result[index].tokens = words.indices.filter { words[$0].segment == index && !dropped.contains($0) }.flatMap { words[$0].tokens }
        }
        return result.filter { !$0.tokens.isEmpty }
    }

    /// Whether each occurrence of `run` has audio of its own: long enough to have been said, not
    /// at the same moment as an earlier one, and holding a burst of sound no earlier occurrence
    /// claimed.
    static func supported(_ run: Run, words: [(segment: Int, tokens: [DecodedToken])], bursts: [Range<Int64>]) -> [Bool] {
        var claimed = Set<Int>()
        var moments = Set<[Int64]>()
        return (0..<run.repeats).map { i in
            let occurrence = run.occurrence(i)
            let start = words[occurrence.lowerBound].tokens.first!.start
            let end = words[occurrence.upperBound - 1].tokens.last!.end
            guard end - start >= shortestWord * Int64(run.length), moments.insert([start, end]).inserted else { return false }
            // The unclaimed burst most under it; a burst mostly outside it (a neighbour's, at the
            // edge) is not its own unless it spans the occurrence.
            func overlap(_ burst: Range<Int64>) -> Int64 { min(burst.upperBound, end + burstSlack) - max(burst.lowerBound, start - burstSlack) }
            func isUnder(_ burst: Range<Int64>) -> Bool { 2 * overlap(burst) > min(Int64(burst.count), end - start) }
            guard let burst = bursts.indices.filter({ !claimed.contains($0) && isUnder(bursts[$0]) })
                .max(by: { overlap(bursts[$0]) < overlap(bursts[$1]) }) else { return false }
            claimed.insert(burst)
            return true
        }
    }

    private static func flattened(_ segments: [DecodedSegment], endOfText: Int32) -> [(segment: Int, tokens: [DecodedToken])] {
        segments.enumerated().flatMap { index, segment in
            WordAssembler.group(segment.tokens, endOfText: endOfText).map { (index, $0) }
        }
    }

    private static func withoutTokenRuns(_ tokens: [DecodedToken]) -> [DecodedToken] {
        var kept: [DecodedToken] = []
        var i = 0
        while i < tokens.count {
            var j = i + 1
            while j < tokens.count && tokens[j].id == tokens[i].id { j += 1 }
            kept.append(contentsOf: tokens[i..<(j - i >= tokenRepeats ? i + 1 : j)])
            i = j
        }
        return kept
    }

    private static func normalisedKey(_ group: [DecodedToken]) -> String {
        WordAssembler.text(of: group).spellingKey
    }

    private static func longestRun(of ids: [Int32]) -> Int {
        var best = 0, run = 0
        for (i, id) in ids.enumerated() {
            run = i > 0 && ids[i - 1] == id ? run + 1 : 1
            best = max(best, run)
        }
        return best
    }

    /// Every run of a phrase repeated at least its threshold in a row, left to right and not
    /// overlapping.
    static func runs(in keys: [String]) -> [Run] {
        var found: [Run] = []
        var start = 0
        while start < keys.count {
            if let run = run(in: keys, from: start) {
                found.append(run)
                start = run.words.upperBound
            } else {
                start += 1
            }
        }
        return found
    }

    private static func run(in keys: [String], from start: Int) -> Run? {
        for length in 1...min(longestPhrase, max(1, keys.count - start)) {
            let phrase = keys[start..<start + length]
            guard phrase.allSatisfy({ !$0.isEmpty }) else { break }
            let repeats = timesInARow(phrase, in: keys, from: start)
            if repeats >= (length == 1 ? wordRepeats : phraseRepeats) { return Run(start: start, length: length, repeats: repeats) }
        }
        return nil
    }
}
