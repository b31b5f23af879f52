import Foundation

/// Recognises and removes decoder loops: the same phrase over and over (within a segment or as
/// the same segment again and again), or one token repeating, which Whisper produces on noise
/// and music.
enum RepetitionGuard {
    /// A phrase of 2+ words repeated this many times in a row is a loop.
    static let phraseRepeats = 3
    /// A single word needs more: "no, no, no" is real speech.
    static let wordRepeats = 5
    /// The same token this many times in a row ("hahahaha…", "-----") is a loop.
    static let tokenRepeats = 5
    static let longestPhrase = 40

    /// The segments holding the first loop, or nil when there is none.
    static func loopingSpan(in segments: [DecodedSegment], endOfText: Int32) -> Range<Int>? {
        let words = flattened(segments, endOfText: endOfText)
        let phraseSpan = firstLoop(in: words.map { normalisedKey($0.tokens) }).map { loop in
            words[loop.start].segment..<(words[loop.start + loop.length * loop.repeats - 1].segment + 1)
        }
        let tokenLoop = segments.firstIndex { longestRun(of: $0.tokens.filter { $0.id < endOfText }.map(\.id)) >= tokenRepeats }
        switch (phraseSpan, tokenLoop) {
        case (let span?, let index?): return index < span.lowerBound ? index..<(index + 1) : span
        case (let span?, nil): return span
        case (nil, let index?): return index..<(index + 1)
        case (nil, nil): return nil
        }
    }

    /// The segments with every looping run cut to its first occurrence; special tokens are
    /// dropped (they carry no words) and segments left without words disappear.
    static func collapsed(_ segments: [DecodedSegment], endOfText: Int32) -> [DecodedSegment] {
        var result = segments.map { segment in
            var segment = segment
            segment.tokens = withoutTokenRuns(segment.tokens.filter { $0.id < endOfText })
            return segment
        }
        var words = flattened(result, endOfText: endOfText)
        while let loop = firstLoop(in: words.map { normalisedKey($0.tokens) }) {
            words.removeSubrange(loop.start + loop.length ..< loop.start + loop.length * loop.repeats)
        }
        for index in result.indices {
            result[index].tokens = words.filter { $0.segment == index }.flatMap(\.tokens)
        }
        return result.filter { !$0.tokens.isEmpty }
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
        WordAssembler.text(of: group).lowercased().filter { $0.isLetter || $0.isNumber }
    }

    private static func longestRun(of ids: [Int32]) -> Int {
        var best = 0, run = 0
        for (i, id) in ids.enumerated() {
            run = i > 0 && ids[i - 1] == id ? run + 1 : 1
            best = max(best, run)
        }
        return best
    }

    /// The first run of a phrase repeated at least its threshold in a row.
    static func firstLoop(in keys: [String]) -> (start: Int, length: Int, repeats: Int)? {
        for start in keys.indices {
            for length in 1...min(longestPhrase, max(1, keys.count - start)) {
                let phrase = keys[start..<start + length]
                guard phrase.allSatisfy({ !$0.isEmpty }) else { break }
                var repeats = 1
                while start + (repeats + 1) * length <= keys.count,
                      keys[(start + repeats * length)..<(start + (repeats + 1) * length)].elementsEqual(phrase) {
                    repeats += 1
                }
                if repeats >= (length == 1 ? wordRepeats : phraseRepeats) { return (start, length, repeats) }
            }
        }
        return nil
    }
}
