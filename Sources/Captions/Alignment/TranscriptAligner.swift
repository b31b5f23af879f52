import CapforgeCore
import Foundation

/// A transcript's words timed from the audio. They are matched in order to the words the
/// recogniser heard (exactly, in runs of two or more, then nearly spelt alike between those:
/// a name heard otherwise); a word between matches takes its share of the speech there; a
/// passage the speech there is too short for was not said, and is left out and reported, as is
/// what was heard where the transcript has nothing, or nothing but descriptions, or far fewer
/// words than were heard.
public enum TranscriptAligner {
    /// Characters a second (spaces included) past which no one speaks: a passage that would need
    /// to be said faster than this where it belongs is not supported by the audio.
    static let fastestSpeech = 25.0
    /// A character of a script written without spaces takes about this many Latin ones to say.
    static let unspacedCharacterWeight = 2.5
    /// Two tokens nearly match when 1 − edit distance / longer length is at least this ("mcgraw"
    /// and "mcgrath" do, 0.71; "list" and "least" do not, 0.6).
    static let nearMatch = 0.7
    /// The near-match search between two exact matches is bounded (token pairs).
    static let maxGapCells = 1_000_000
    /// A stretch where the recogniser's words and the transcript's both run this long without a
    /// near match is different text, not a mishearing (modern tier only: the basic tier's words
    /// are often unlike what was said); so is one where this many words or more were heard, more
    /// than twice the transcript's there. Fewer words heard in all tell nothing of a transcript.
    public static let differentTextWords = 4
    /// A passage the recogniser did not hear with too little speech for it is reported as not
    /// said, and left out, from this many words; a shorter one is kept, its time estimated.
    static let shortestUnheardPassage = 6

    /// `heard`: what the recogniser heard; `speech`: where the speech detector found speech.
    /// The result has the transcript's words, each with the tier of the words it was timed by,
    /// and `alignment` saying how they matched.
    public static func align(_ written: WrittenTranscript, source: String, to heard: Transcript, speech: [TimeSpan]) -> Transcript {
        var work = Work(written: written, heard: heard, speech: speech)
        let anchors = work.matchWords()
        for gap in 0...anchors.count {
            work.fill(after: gap > 0 ? anchors[gap - 1] : nil, before: gap < anchors.count ? anchors[gap] : nil)
        }
        var result = heard
        result.words = work.words()
        result.alignment = TranscriptAlignment(source: source, words: written.words.count, matched: anchors.count, timedBetween: work.timedBetween,
                                               notHeard: work.notHeard, estimated: work.estimated, notInTranscript: work.notInTranscript)
        return result
    }

    /// The alignment under way: each written word's time and the tier that timed it, and the
    /// passages found along the way.
    struct Work {
        let written: WrittenTranscript
        let heard: Transcript
        let speech: [TimeSpan]
        let w: Tokenized, h: Tokenized
        /// Each written word's matched heard tokens.
        var matched: [ClosedRange<Int>?]
        var times: [TimeSpan?]
        var tiers: [(Tier, String)?]
        var notHeard: [TranscriptAlignment.Passage] = []
        var estimated: [TranscriptAlignment.Passage] = []
        var notInTranscript: [TranscriptAlignment.Passage] = []
        var timedBetween = 0
        private let heardStarts: [Double]

        init(written: WrittenTranscript, heard: Transcript, speech: [TimeSpan]) {
            self.written = written
            self.heard = heard
            self.speech = speech
            w = Tokenized(written.words.map(\.text))
            h = Tokenized(heard.words.map(\.text))
            matched = Array(repeating: nil, count: written.words.count)
            times = Array(repeating: nil, count: written.words.count)
            tiers = Array(repeating: nil, count: written.words.count)
            heardStarts = heard.words.map(\.start)
        }

        /// Exact matches in runs, then near ones between them; each matched word takes its heard
        /// tokens' time. The matched words' indices, in order.
        mutating func matchWords() -> [Int] {
            let exact = TextMatching.commonSubsequence(w.tokens, h.tokens)
            let runs = TextMatching.inRuns(exact).map { exact[$0] }
            // Near matches are looked for about exact ones: with none, a word spelt like one heard
            // is met by chance, and would tie an unrelated text to the talk.
            for (a, b) in runs.isEmpty ? [] : withNearMatches(runs, w, h) {
                let owner = w.owner[a]
                matched[owner] = matched[owner].map { $0.lowerBound...b } ?? b...b
            }
            for (index, range) in matched.enumerated() {
                guard let range else { continue }
                times[index] = TimeSpan(start: h.start(of: range.lowerBound, in: heard.words), end: h.end(of: range.upperBound, in: heard.words))
                let word = heard.words[h.owner[range.lowerBound]]
                tiers[index] = (word.tier, word.engine)
            }
            return matched.indices.filter { matched[$0] != nil }
        }

        /// The written words between two matched ones (or an end): timed by the speech there, or
        /// found not heard; heard words there that no written word took are not in the transcript.
        mutating func fill(after before: Int?, before after: Int?) {
            let writtenGap = (before.map { $0 + 1 } ?? 0)..<(after ?? written.words.count)
            let heardTokens = (before.map { matched[$0]!.upperBound + 1 } ?? 0)..<(after.map { matched[$0]!.lowerBound } ?? h.tokens.count)
            // Heard words wholly between the matches.
            let unheardWords = heardTokens.isEmpty ? [] : Array(Set(heardTokens.map { h.owner[$0] })).sorted()
                .filter { h.tokenRange(of: $0).allSatisfy(heardTokens.contains) }.map { heard.words[$0] }
            let window = TimeSpan(start: before.map { times[$0]!.end } ?? 0,
                                  end: after.map { times[$0]!.start } ?? max(heard.duration, heard.words.last?.end ?? 0))
            guard !writtenGap.isEmpty else {
                if unheardWords.count >= 2 { notInTranscript.append(passage(of: unheardWords)) }
                return
            }
            // Sound descriptions are not looked for in the speech: they stay where they are written.
            let spoken = writtenGap.filter { !written.words[$0].isDescription }
            let differentText = unheardWords.count >= differentTextWords
                && (writtenGap.count >= differentTextWords && unheardWords.allSatisfy { $0.tier == .modern } || unheardWords.count > 2 * spoken.count)
            // Words heard in the gap are speech there, misheard: the text needs only to be said
            // at twice the fastest speech to fit it, and takes their times when it fits them.
            let needed = spoken.reduce(0.0) { $0 + sayingWeight(written.words[$1].text) } / fastestSpeech / (unheardWords.isEmpty ? 1 : 2)
            let misheard = spans(within: window, speech: [], words: unheardWords)
            let available = differentText ? [] : length(misheard) >= needed && !misheard.isEmpty
                ? misheard : spans(within: window, speech: speech, words: unheardWords)
            let fits = !available.isEmpty && length(available) >= needed
            // A recogniser drops a few words (overlapping voices, a quick aside) more often than
            // a transcript holds a few never said: a short passage is kept, said to be estimated.
            let short = spoken.count < shortestUnheardPassage
            // Heard words the written ones here do not account for (another text, descriptions
            // only, or words that do not fit them) were said and are not in the transcript;
            // descriptions alone then go where nothing was heard.
            let lacking = unheardWords.count >= 2 && (!fits || spoken.isEmpty)
            if lacking { notInTranscript.append(passage(of: unheardWords)) }
            let quiet = lacking && spoken.isEmpty ? TranscriptAligner.quiet(within: window, around: unheardWords) : []
            place(fits || short ? Array(writtenGap) : writtenGap.filter { written.words[$0].isDescription },
                  over: !quiet.isEmpty ? quiet : available.isEmpty ? [window] : available)
            guard !fits, !spoken.isEmpty else { return }
            let words = spoken.map { written.words[$0] }
            let unheard = TranscriptAlignment.Passage(text: joined(words.map(\.text)), words: words.count, line: words[0].line,
                                                      start: window.start, end: max(window.start, window.end))
            if short { estimated.append(unheard) } else { notHeard.append(unheard) }
        }

        /// `indices`' words timed in turn over `spans`, by length, each with the tier and engine
        /// of the heard word starting nearest it.
        private mutating func place(_ indices: [Int], over spans: [TimeSpan]) {
            guard !indices.isEmpty else { return }
            let placed = TranscriptAligner.place(indices.map { sayingWeight(written.words[$0].text) }, over: spans)
            for (offset, index) in indices.enumerated() {
                times[index] = placed[offset]
                let after = partitionPoint(heardStarts) { $0 >= placed[offset].start }
                tiers[index] = [after - 1, after].filter { heard.words.indices.contains($0) }
                    .min { abs(heardStarts[$0] - placed[offset].start) < abs(heardStarts[$1] - placed[offset].start) }
                    .map { (heard.words[$0].tier, heard.words[$0].engine) }
            }
            timedBetween += indices.count
        }

        /// The written words with their times, in order.
        func words() -> [Word] {
            var words: [Word] = []
            for (index, word) in written.words.enumerated() {
                guard var time = times[index] else { continue }
                // Matches are in order; a recogniser's overlapping times must not reorder the text.
                if let last = words.last { time.start = max(time.start, last.start) }
                time.end = max(time.end, time.start + 0.01)
                let (tier, engine) = tiers[index] ?? (heard.words.first?.tier ?? .modern, heard.words.first?.engine ?? "transcript")
                // The text is the user's, not a guess: nothing in it is low-confidence.
                words.append(Word(text: word.text, start: time.start, end: time.end, confidence: 1, calibratedConfidence: 1, tier: tier, engine: engine))
            }
            return words
        }
    }

    /// How long a word takes to say, in Latin characters (a space after it included).
    static func sayingWeight(_ text: String) -> Double {
        text.reduce(1.0) { $0 + (UnspacedScript.contains($1) ? unspacedCharacterWeight : 1) }
    }

    private static func passage(of words: [Word]) -> TranscriptAlignment.Passage {
        TranscriptAlignment.Passage(text: joined(words.map(\.text)), words: words.count, line: nil,
                                    start: words.first!.start, end: words.last!.end)
    }

    /// A passage's text is a pointer into the transcript (its line says where): a long one is
    /// cut here, its word count whole.
    static let passageCharacters = 1000

    /// Words as running text: spaced, but where either side is written without spaces; cut
    /// after `passageCharacters`.
    static func joined(_ texts: [String]) -> String {
        var text = ""
        for piece in texts {
            if text.count >= passageCharacters { return text + "…" }
            text += TextMetrics.separator(between: text, and: piece) + piece
        }
        return text
    }

    static func length(_ spans: [TimeSpan]) -> Double { spans.reduce(0) { $0 + $1.end - $1.start } }

    /// Where speech is within `window`: the detector's regions and the unmatched heard words,
    /// joined where they overlap. Slivers at the window's edges (the padding of a region about
    /// a matched word) are left out when there is more.
    static func spans(within window: TimeSpan, speech: [TimeSpan], words: [Word]) -> [TimeSpan] {
        let clipped = (speech + words.map { TimeSpan(start: $0.start, end: $0.end) })
            .map { TimeSpan(start: max($0.start, window.start), end: min($0.end, window.end)) }
            .filter { $0.end > $0.start }
            .sorted { $0.start < $1.start }
        var joined: [TimeSpan] = []
        for span in clipped {
            if let last = joined.last, span.start <= last.end {
                joined[joined.count - 1].end = max(last.end, span.end)
            } else {
                joined.append(span)
            }
        }
        let substantial = joined.filter { $0.end - $0.start >= shortestSpan }
        return substantial.isEmpty ? joined : substantial
    }

    /// Where nothing was heard within `window`: around and between `words`, but the breaths
    /// between words (shorter than `shortestSpan`) when there is more.
    static func quiet(within window: TimeSpan, around words: [Word]) -> [TimeSpan] {
        var quiet: [TimeSpan] = []
        var start = window.start
        for span in spans(within: window, speech: [], words: words) {
            if span.start > start { quiet.append(TimeSpan(start: start, end: span.start)) }
            start = max(start, span.end)
        }
        if window.end > start { quiet.append(TimeSpan(start: start, end: window.end)) }
        let pauses = quiet.filter { $0.end - $0.start >= shortestSpan }
        return pauses.isEmpty ? quiet : pauses
    }

    /// Seconds: speech shorter than this between matched words is taken for their edges.
    static let shortestSpan = 0.15

    /// Consecutive stretches of `spans` in proportion to `weights`; a word does not run on
    /// across a pause into the next span.
    static func place(_ weights: [Double], over spans: [TimeSpan]) -> [TimeSpan] {
        let total = spans.reduce(0) { $0 + $1.end - $1.start }
        let sum = weights.reduce(0, +)
        /// A word's start at a span's end is the next span's start; its end stays.
        func time(at position: Double, starting: Bool) -> (time: Double, span: Int) {
            var left = position
            for (index, span) in spans.enumerated() {
                let length = span.end - span.start
                if (starting ? left < length : left <= length) || index == spans.count - 1 { return (span.start + min(left, length), index) }
                left -= length
            }
            return (spans.last!.end, spans.count - 1)
        }
        var cumulative = 0.0
        return weights.map { weight in
            let start = time(at: total * cumulative / sum, starting: true)
            cumulative += weight
            let end = time(at: total * cumulative / sum, starting: false)
            return TimeSpan(start: start.time, end: end.span == start.span ? end.time : spans[start.span].end)
        }
    }

    /// `exact` and, between each two of them, the best in-order near matches of tokens of
    /// `nearMatchLength` characters or more (shorter ones, "of", "the", a single character of
    /// unspaced text, meet by chance: between two exact matches a lone one would tie a passage
    /// never said to a word heard elsewhere).
    static func withNearMatches(_ exact: [(Int, Int)], _ w: Tokenized, _ h: Tokenized) -> [(Int, Int)] {
        var pairs: [(Int, Int)] = []
        let bounds = [(-1, -1)] + exact + [(w.tokens.count, h.tokens.count)]
        for index in 0..<(bounds.count - 1) {
            let a = (bounds[index].0 + 1)..<bounds[index + 1].0, b = (bounds[index].1 + 1)..<bounds[index + 1].1
            if !a.isEmpty, !b.isEmpty, a.count * b.count <= maxGapCells { pairs += nearMatches(a, b, w.tokens, h.tokens) }
            if index + 1 < bounds.count - 1 { pairs.append(bounds[index + 1]) }
        }
        return pairs
    }

    /// In-order pairs from `a` and `b` nearly spelt alike, most alike in all.
    private static func nearMatches(_ a: Range<Int>, _ b: Range<Int>, _ x: [String], _ y: [String]) -> [(Int, Int)] {
        let n = a.count, m = b.count
        var score = [[Double]](repeating: [Double](repeating: 0, count: m + 1), count: n + 1)
        var similar = [[Double]](repeating: [Double](repeating: 0, count: m + 1), count: n + 1)
        for i in 1...n {
            for j in 1...m {
                let s = similarity(x[a.lowerBound + i - 1], y[b.lowerBound + j - 1])
                similar[i][j] = s
                score[i][j] = max(score[i - 1][j], score[i][j - 1], s >= nearMatch ? score[i - 1][j - 1] + s : -1)
            }
        }
        var pairs: [(Int, Int)] = []
        var i = n, j = m
        while i > 0 && j > 0 {
            if similar[i][j] >= nearMatch, score[i][j] == score[i - 1][j - 1] + similar[i][j] {
                pairs.append((a.lowerBound + i - 1, b.lowerBound + j - 1))
                i -= 1
                j -= 1
            } else if score[i][j] == score[i - 1][j] {
                i -= 1
            } else {
                j -= 1
            }
        }
        return pairs.reversed()
    }

    static let nearMatchLength = 4

    /// 1 − edit distance / longer length; 0 when either is shorter than `nearMatchLength`, or
    /// when their lengths alone put them too far apart to match (the distance is at least the
    /// difference: a long token is not compared letter by letter with every short one).
    static func similarity(_ a: String, _ b: String) -> Double {
        let x = Array(a), y = Array(b)
        guard x.count >= nearMatchLength, y.count >= nearMatchLength,
              Double(abs(x.count - y.count)) <= (1 - nearMatch) * Double(max(x.count, y.count)) else { return 0 }
        var row = Array(0...y.count)
        for i in 1...x.count {
            var previous = row[0]
            row[0] = i
            for j in 1...y.count {
                let kept = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (x[i - 1] == y[j - 1] ? 0 : 1))
                previous = kept
            }
        }
        return 1 - Double(row[y.count]) / Double(max(x.count, y.count))
    }

    /// Words as matching tokens, each token knowing its word and its share of it.
    struct Tokenized {
        var tokens: [String] = []
        var owner: [Int] = []
        var share: [(Double, Double)] = []
        var firstToken: [Int] = []

        init(_ texts: [String]) {
            for (index, text) in texts.enumerated() {
                let pieces = TextMatching.tokens(text)
                firstToken.append(tokens.count)
                for (k, piece) in pieces.enumerated() {
                    tokens.append(piece)
                    owner.append(index)
                    share.append((Double(k) / Double(pieces.count), Double(k + 1) / Double(pieces.count)))
                }
            }
            firstToken.append(tokens.count)
        }

        func tokenRange(of word: Int) -> Range<Int> { firstToken[word]..<firstToken[word + 1] }

        func start(of token: Int, in words: [Word]) -> Double {
            let word = words[owner[token]]
            return word.start + share[token].0 * word.duration
        }

        func end(of token: Int, in words: [Word]) -> Double {
            let word = words[owner[token]]
            return word.start + share[token].1 * word.duration
        }
    }
}
