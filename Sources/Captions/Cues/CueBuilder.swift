import CapforgeCore
import Foundation

/// Turns timed words into cues by the profile's rules.
///
/// Segmentation is a shortest-path search over cue boundaries: each candidate cue must fit the
/// lines, the duration and the reading time it needs, and costs less the better its end
/// point (sentence end, then clause punctuation, then a pause). Timing then places each cue on
/// its speech, lingers towards the target speed, and chains short gaps.
public struct CueBuilder: Sendable {
    public let profile: CaptionProfile
    public let rules: CueRules
    /// The text's language: English phrase rules apply to English only.
    public let language: Language

    /// Delays shorter than this are routine (minimum durations) and not reported.
    static let reportedDelay = 250

    /// The most a cue may start after its speech because earlier cues needed reading time.
    static let maxDelay = 1000

    /// Languages written without spaces between words: their cue and line breaks need ICU's segmentation.
    static let unspacedLanguages: Set<String> = ["zh", "ja", "yue", "th", "lo", "km", "my"]

    public init(profile: CaptionProfile = .netflixEnglish, fps: Double? = nil, language: Language = .english) throws {
        try profile.validate()
        if Self.unspacedLanguages.contains(language.code) { try WordSegmentation.check() }
        self.profile = profile
        self.rules = try CueRules(profile: profile, framesPerSecond: fps)
        self.language = language
    }

    private var lineBreaker: LineBreaker {
        LineBreaker(maxWidth: profile.lineColumns, maxLines: profile.maxLines, rules: BreakRules.forLanguage(language))
    }

    /// `mediaEnd`: where the media ends, in seconds (`MediaProbe.mediaEnd`): no cue ends after
    /// it, even where a cue squeezed against it then breaks the profile's rules (reported).
    /// `shotChanges`: the video's shot changes (seconds), which cues are timed to (`ShotTiming`).
    /// `music`: stretches of music with no voice that get a label cue (`--sdh`), in order.
    public func build(words input: [Word], mediaEnd: Double? = nil, shotChanges: [Double]? = nil, music: [SoundEvent] = []) -> CueBuildResult {
        var splits: [CueSplit] = []
        let limit = mediaEnd.map { max(0, Int(($0 * 1000).rounded(.down))) }
        let words = prepare(input, mediaEnd: limit, splits: &splits)
        var cues = words.isEmpty ? [] : place(segment(words, mediaEnd: limit), of: words, mediaEnd: limit, splits: &splits)
        if let shotChanges {
            let timed = ShotTiming(changes: shotChanges, rules: rules).apply(cues)
            cues = timed.cues
            splits += timed.kept
        }
        if !music.isEmpty { cues = labelled(cues, music: music, mediaEnd: limit, splits: &splits) }
        splits.sort { ($0.cue, $0.time) < ($1.cue, $1.time) }
        return CueBuildResult(cues: cues, splits: splits, violations: rules.violations(in: cues))
    }

    /// `cues` with a label cue (`SoundLabel.music`) where each stretch of `music` begins, shown
    /// until the stretch ends (at most a cue's longest duration), kept clear of the cues about it
    /// by the profile's gaps; a stretch with too little room left for the label gets none. The
    /// splits' cue numbers follow the cues they name.
    private func labelled(_ cues: [Cue], music: [SoundEvent], mediaEnd: Int?, splits: inout [CueSplit]) -> [Cue] {
        let label = [SoundLabel.music(in: language)]
        let gap = rules.timing.chainedGap, openGap = rules.timing.smallestOpenGap
        var result: [Cue] = []
        var next = 0
        // Where each cue of `cues` went: the splits name those.
        var placed: [Int] = []
        for stretch in music {
            let from = Int((stretch.start * 1000).rounded()), to = min(Int((stretch.end * 1000).rounded()), mediaEnd ?? .max)
            while next < cues.count, cues[next].start < from {
                placed.append(result.count)
                result.append(cues[next])
                next += 1
            }
            // A gap too short to leave open is chained, on either side.
            var start = max(from, (result.last?.end ?? 0) + gap)
            if let previous = result.last, start - previous.end < openGap { start = previous.end + gap }
            let following = next < cues.count ? cues[next].start : Int.max
            var end = min(to, start + rules.longestDuration, following - gap)
            if following != .max, following - end < openGap { end = min(following - gap, start + rules.longestDuration) }
            guard end - start >= rules.requiredDuration(lines: label) else { continue }
            result.append(Cue(start: start, end: end, lines: label))
        }
        placed += (next..<cues.count).map { result.count + $0 - next }
        result += cues[next...]
        splits = splits.map { split in
            var split = split
            if split.cue > 0 { split.cue = placed[split.cue - 1] + 1 }
            return split
        }
        return result
    }

    // MARK: - Words

    private func prepare(_ input: [Word], mediaEnd: Int?, splits: inout [CueSplit]) -> [TimedWord] {
        let sorted = input.enumerated()
            .map { offset, word -> (Int, Word) in
                var word = word
                word.text = word.text.trimmingCharacters(in: .whitespacesAndNewlines)
                if language.code == "fr" { word.text = FrenchSpacing.spaced(word.text) }
                return (offset, word)
            }
            .filter { !$0.1.text.isEmpty }
            .sorted { ($0.1.start, $0.0) < ($1.1.start, $1.0) }
            .map(\.1)
        var words: [TimedWord] = []
        for word in sorted {
            var timed = TimedWord(word)
            if let mediaEnd {
                // A recogniser's timestamps can overrun the media by a few hundred milliseconds.
                timed.start = min(timed.start, mediaEnd)
                timed.end = min(timed.end, mediaEnd)
            }
            if timed.end - timed.start > rules.longestDuration {
                timed.end = timed.start + rules.longestDuration
                splits.append(CueSplit(
                    reason: .wordTooLong, cue: 0, time: timed.start,
                    message: "\"\(word.text)\" lasted \(String(format: "%.1f", word.duration)) s; shown for \(rules.longestDuration) ms"))
            }
            let pieces = cut(timed)
            if pieces.count > 1 {
                splits.append(CueSplit(
                    reason: .wordTooWide, cue: 0, time: timed.start,
                    message: "\"\(word.text)\" is wider than a \(profile.maxCharactersPerLine)-character line; cut into \(pieces.count) pieces"))
            }
            words += pieces
        }
        markWordEnds(&words)
        return words
    }

    /// Recognisers split Chinese and Japanese into tokens, not words: a cue should not end
    /// between two tokens of one word as ICU's segmentation of the running text finds it.
    private func markWordEnds(_ words: inout [TimedWord]) {
        var index = 0
        while index < words.count {
            var end = index + 1
            while end < words.count, let last = words[end - 1].word.text.last, let first = words[end].word.text.first,
                  TextMetrics.isUnspaced(last) && TextMetrics.isUnspaced(first) { end += 1 }
            if end - index > 1, let starts = WordSegmentation.startsWords(words[index..<end].map(\.word.text)) {
                // A word ends where the next begins one.
                for i in index..<(end - 1) { words[i].endsWord = starts[i - index + 1] }
            }
            index = end
        }
    }

    /// Cuts a word that cannot be laid out on the cue's lines into line-sized pieces sharing its
    /// time (a long unit, or a whole unspaced CJK segment that a recogniser returned as one word).
    private func cut(_ word: TimedWord) -> [TimedWord] {
        let limit = profile.lineColumns
        let units = TextUnit.units(of: [word.word.text])
        guard units.contains(where: { $0.width > limit }) || !lineBreaker.fits(units) else { return [word] }
        var pieces: [String] = [""]
        for character in word.word.text {
            if TextMetrics.width(pieces[pieces.count - 1] + String(character)) > limit { pieces.append("") }
            pieces[pieces.count - 1].append(character)
        }
        let span = word.end - word.start
        return pieces.enumerated().map { index, text in
            var piece = word
            piece.word.text = text
            piece.start = word.start + span * index / pieces.count
            piece.end = word.start + span * (index + 1) / pieces.count
            return piece
        }
    }

    // MARK: - Segmentation

    /// Word index ranges of the cheapest valid segmentation.
    private func segment(_ words: [TimedWord], mediaEnd: Int?) -> [Range<Int>] {
        let n = words.count
        var best = [Double](repeating: .infinity, count: n + 1)
        var from = [Int](repeating: 0, count: n + 1)
        best[0] = 0
        for start in 0..<n where best[start].isFinite {
            var speechEnd = words[start].end
            for end in (start + 1)...n {
                let last = words[end - 1]
                if end - 1 > start && last.start - words[end - 2].end >= Int(profile.pauseBreak) && !holdsAcrossPause(words, end - 2) { break }
                let units = TextUnit.units(of: words[start..<end].map(\.word.text))
                speechEnd = max(speechEnd, last.end)
                let text = [TextUnit.join(units[...])]
                let valid = lineBreaker.fits(units) && speechEnd - words[start].start <= rules.longestDuration
                    && rules.requiredDuration(lines: text) <= rules.longestDuration
                // A word that no valid cue can hold (an 8 s "word" over music) still gets a cue of
                // its own, at a prohibitive cost, so the rest of the file stays segmentable; the
                // rule breaks are reported, never hidden.
                guard valid || end == start + 1 else { break }
                let cost = best[start] + (valid ? 0 : 1e9) + cueCost(words, start..<end, units: units, text: text, speechEnd: speechEnd, mediaEnd: mediaEnd)
                if cost < best[end] {
                    best[end] = cost
                    from[end] = start
                }
            }
        }
        var ranges: [Range<Int>] = []
        var end = n
        while end > 0 {
            ranges.insert(from[end]..<end, at: 0)
            end = from[end]
        }
        return ranges
    }

    private func cueCost(_ words: [TimedWord], _ range: Range<Int>, units: [TextUnit], text: [String], speechEnd: Int, mediaEnd: Int?) -> Double {
        var cost = 6.0 + Double(lineBreaker.lineCount(units) - 1)
        let start = words[range.lowerBound].start
        var available = min(speechEnd + Int(profile.maxLinger), mediaEnd ?? .max) - start
        if range.upperBound < words.count {
            cost += boundaryCost(after: range.upperBound - 1, in: words)
            available = min(available, words[range.upperBound].start - rules.timing.chainedGap - start)
        }
        let characters = profile.readingLength(text)
        let speed = characters * 1000 / Double(max(available, 1))
        // Speech faster than the reading speed is over it in any cut: only what the cut itself
        // adds (too little time after the speech) is weighed, so fast speech still breaks at its sentences.
        let spoken = characters * 1000 / Double(max(speechEnd - start, 1))
        let target = max(profile.targetCharactersPerSecond, spoken), limit = max(profile.maxCharactersPerSecond, spoken)
        if speed > target { cost += (speed - target) * 2 }
        if speed > limit { cost += (speed - limit) * 10 }
        // A layout that must break inside a word or before closing punctuation makes a poor cue.
        cost += Double(lineBreaker.awkwardBreaks(units)) * 12
        if Double(available) < profile.minDuration { cost += 3 + (profile.minDuration - Double(available)) / 100 }
        return cost
    }

    /// Whether a cue may run on over a long pause after this word: a cue ending on "the" or "and"
    /// leaves the reader waiting for the rest of the phrase, and a pause after it is hesitation.
    private func holdsAcrossPause(_ words: [TimedWord], _ index: Int) -> Bool {
        let text = words[index].word.text
        return lineBreaker.rules?.leavesPhraseOpen(text) == true
            && index + 1 < words.count && Double(words[index + 1].start - words[index].end) < profile.pauseBreak * 3
    }

    private func boundaryCost(after index: Int, in words: [TimedWord]) -> Double {
        let text = words[index].word.text
        let pause = words[index + 1].start - words[index].end
        // First: "Mr." ends with a period but no sentence.
        if holdsAcrossPause(words, index) { return 20 }
        if Punctuation.endsSentence(text) { return 0 }
        if Double(pause) >= profile.pauseBreak { return 0 }
        if !words[index].endsWord { return 20 }
        let endsClause = Punctuation.endsClause(text)
        var cost = endsClause ? 3.0 : 12.0
        if pause >= 100 { cost = min(cost, max(1, 10 - Double(pause) / 40)) }
        if let rules = lineBreaker.rules, cost >= 12 {
            if rules.startsPhrase.contains(BreakRules.normalised(words[index + 1].word.text)) { cost = 8 }
            if rules.bindsForward.contains(BreakRules.normalised(text)) { cost = 20 }
        }
        return cost
    }

    /// A boundary no reader would choose: no punctuation and barely a pause.
    private func isNatural(after index: Int, in words: [TimedWord]) -> Bool {
        let text = words[index].word.text
        return Punctuation.endsSentence(text) || Punctuation.endsClause(text)
            || words[index + 1].start - words[index].end >= 250
    }

    // MARK: - Timing

    private func place(_ segments: [Range<Int>], of words: [TimedWord], mediaEnd: Int?, splits: inout [CueSplit]) -> [Cue] {
        let timing = rules.timing
        var cues: [Cue] = []
        var nextStart = words[segments[0].lowerBound].start
        for (index, range) in segments.enumerated() {
            let cueWords = words[range]
            let lines = lineBreaker.layout(TextUnit.units(of: cueWords.map(\.word.text))) ?? [cueWords.map(\.word.text).joined(separator: " ")]
            let speechStart = cueWords.first!.start
            let speechEnd = cueWords.map(\.end).max()!
            // Cues delayed by fast speech could be pushed past the media's end: they start at it at the latest.
            let start = min(nextStart, mediaEnd ?? .max)
            if start - speechStart >= Self.reportedDelay {
                splits.append(CueSplit(reason: .delayed, cue: index + 1, time: start,
                                       message: "shown \(start - speechStart) ms after its speech starts to keep earlier cues readable"))
            }
            if range.upperBound < words.count && !isNatural(after: range.upperBound - 1, in: words)
                && Double(words[range.upperBound].start - words[range.upperBound - 1].end) < profile.pauseBreak {
                splits.append(CueSplit(reason: .noNaturalBreak, cue: index + 1, time: words[range.upperBound - 1].end,
                                       message: "speech without punctuation or pause was too long for one cue; split after \"\(words[range.upperBound - 1].word.text)\""))
            }
            let required = rules.requiredDuration(lines: lines)
            let targetEnd = start + Int((profile.readingLength(lines) * 1000 / profile.targetCharactersPerSecond).rounded(.up))
            var end = max(speechEnd, min(targetEnd, speechEnd + Int(profile.maxLinger)))
            let nextSpeech = index + 1 < segments.count ? words[segments[index + 1].lowerBound].start : nil
            if let nextSpeech { end = min(end, nextSpeech - timing.chainedGap) }
            end = min(max(end, start + required), start + rules.longestDuration)
            // Speech faster than the profile's reading speed (verbatim captions cannot condense)
            // would push every later cue further behind its speech: a cue ends in time for the next
            // to start at most `maxDelay` late, and its reading speed is reported as broken.
            if let nextSpeech, end + timing.chainedGap > nextSpeech + Self.maxDelay {
                end = max(start + Int(profile.minDuration.rounded(.up)), nextSpeech + Self.maxDelay - timing.chainedGap)
            }
            if let nextSpeech {
                let gap = nextSpeech - end
                nextStart = nextSpeech
                if gap < timing.chainedGap {
                    nextStart = end + timing.chainedGap
                } else if gap > timing.chainedGap && gap < timing.smallestOpenGap {
                    if nextSpeech - timing.chainedGap - start <= rules.longestDuration {
                        end = nextSpeech - timing.chainedGap
                    } else if nextSpeech - timing.smallestOpenGap >= start + required {
                        end = nextSpeech - timing.smallestOpenGap
                    } else {
                        nextStart = end + timing.smallestOpenGap
                    }
                }
            }
            if let mediaEnd, end > mediaEnd {
                // The media's end wins over the profile: a cue past it is shown over nothing, or never.
                end = mediaEnd
                var broken: [String] = []
                rules.check(Cue(start: start, end: end, lines: lines)) { rule, _ in broken.append(rule.rawValue) }
                if end - start < required {
                    splits.append(CueSplit(reason: .mediaEnd, cue: index + 1, time: end,
                                           message: "ends with the media at \(Timecode.milliseconds(end, mark: ".")): shown \(end - start) ms where the profile needs \(required) ms"
                                               + (broken.isEmpty ? "" : " (counted: \(broken.joined(separator: ", ")))")))
                }
            }
            cues.append(Cue(start: start, end: end, lines: lines, words: cueWords.map(\.word)))
        }
        for index in splits.indices where splits[index].cue == 0 {
            splits[index].cue = (cues.firstIndex { $0.end >= splits[index].time } ?? cues.count - 1) + 1
        }
        return cues
    }
}

/// A word with its times in whole milliseconds, as cues use.
private struct TimedWord {
    var word: Word
    var start: Int
    var end: Int
    /// False when the next word continues this one (tokens of one Chinese or Japanese word).
    var endsWord = true

    init(_ word: Word) {
        self.word = word
        start = max(0, Int((word.start * 1000).rounded()))
        end = max(start, Int((word.end * 1000).rounded()))
    }
}
