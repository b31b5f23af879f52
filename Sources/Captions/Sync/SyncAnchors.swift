import CapforgeCore
import Foundation

/// Anchors from text: the cues' words aligned in order with the recognised words (the longest
/// common subsequence within a band about the diagonal); only matches in runs of two or more
/// count, and a cue's first one says where on the media the cue starts.
enum WordAnchors {
    struct Token {
        var text: String
        /// Subtitle entry, and where in it the token starts (0–1); or the recognised word's start.
        var entry: Int
        var time: Double
    }

    static func find(entries: [RetimableSubtitles.Entry], words: [Word]) -> [SubtitleSync.Anchor] {
        var subtitle: [Token] = []
        for (index, entry) in entries.enumerated() {
            let pieces = TextMatching.tokens(entry.text)
            for (k, piece) in pieces.enumerated() {
                let at = Double(entry.start) + Double(k) / Double(pieces.count) * Double(entry.end - entry.start)
                subtitle.append(Token(text: piece, entry: index, time: at / 1000))
            }
        }
        var heard: [Token] = []
        for word in words {
            let pieces = TextMatching.tokens(word.text)
            for (k, piece) in pieces.enumerated() {
                heard.append(Token(text: piece, entry: -1, time: word.start + Double(k) / Double(pieces.count) * word.duration))
            }
        }
        let pairs = TextMatching.commonSubsequence(subtitle.map(\.text), heard.map(\.text))
        let found = TextMatching.inRuns(pairs)
        // A cue's first word found says where it starts; words further in are placed by their
        // share of the cue, and a cue stays on screen past its speech, so those read late.
        // Each of its words found counts towards the cue's weight.
        var matches: [Int: Int] = [:]
        for index in found { matches[subtitle[pairs[index].0].entry, default: 0] += 1 }
        var seen = Set<Int>()
        return found.compactMap { index in
            let (s, h) = pairs[index]
            let entry = subtitle[s].entry
            guard seen.insert(entry).inserted else { return nil }
            return SubtitleSync.Anchor(entry: entry, subtitle: subtitle[s].time, media: heard[h].time, weight: Double(matches[entry]!))
        }
    }
}

/// Anchors from speech alone: where sliding the cues' coverage along the speech regions makes
/// them agree best. The whole file first, at each candidate rate (the rate agreeing best is
/// kept), then blocks of cues near the whole file's offset, for splits; a block's anchor is
/// weighted by how clearly its best offset stands above the others.
enum SpeechAnchors {
    /// How far the whole-file offset is looked for, and a block's about it (seconds).
    static let searchSeconds = 600.0
    static let blockSearchSeconds = 60.0
    /// A block holds cues spanning at least this much subtitle time.
    static let blockSeconds = 30.0

    static func find(entries: [RetimableSubtitles.Entry], speech: [TimeSpan]) -> [SubtitleSync.Anchor] {
        // Cues no offset or rate searched could bring onto the speech are not looked at: the
        // work is bounded by the media, however long the subtitle file says it runs.
        let slowest = TimingMap.candidateRates.map(\.rate).min()!
        let horizon = ((speech.last?.end ?? 0) + searchSeconds + blockSearchSeconds) / slowest
        let considered = entries.indices.filter { Double(entries[$0].start) / 1000 < horizon }
        guard !considered.isEmpty, !speech.isEmpty else { return [] }
        let voice = Signal(spans: speech.map { ($0.start, $0.end) })
        func coverage(_ indices: some Sequence<Int>, rate: Double) -> Signal {
            Signal(spans: indices.map { (rate * Double(entries[$0].start) / 1000, rate * Double(entries[$0].end) / 1000) })
        }
        var best: (rate: Double, lag: Double, agreement: Double)?
        for candidate in TimingMap.candidateRates {
            let found = voice.bestLag(of: coverage(considered, rate: candidate.rate), around: 0, within: searchSeconds)
            // A conversion must agree clearly better than none.
            if best == nil || found.agreement > best!.agreement + 0.02 { best = (candidate.rate, found.lag, found.agreement) }
        }
        guard let (rate, global, _) = best else { return [] }
        let ordered = considered.sorted { entries[$0].start < entries[$1].start }
        var blocks: [[Int]] = [[]]
        for index in ordered {
            if let first = blocks[blocks.count - 1].first, Double(entries[index].start - entries[first].start) / 1000 >= blockSeconds { blocks.append([]) }
            blocks[blocks.count - 1].append(index)
        }
        let onsets = speech.map(\.start)
        return blocks.compactMap { block -> SubtitleSync.Anchor? in
            let found = voice.bestLag(of: coverage(block, rate: rate), around: global, within: blockSearchSeconds)
            guard found.clarity > 0 else { return nil }
            let starts = block.map { rate * Double(entries[$0].start) / 1000 }
            let lag = onsetLag(starts, onsets: onsets, around: found.lag, within: 1) ?? found.lag
            let start = Double(entries[block[0]].start) / 1000
            return SubtitleSync.Anchor(entry: block[0], subtitle: start, media: rate * start + lag, weight: 4 * found.clarity)
        }
    }

    /// Coverage places a block to within its cues' lingering on screen after the speech (a
    /// reader's time, so cue ends say little); a cue starts where speech does. The lag within
    /// `within` seconds of `around` that brings the most cue starts onto a speech onset (each
    /// within `onsetReach`, nearer counting more); nil when no start comes near one.
    static func onsetLag(_ starts: [Double], onsets: [Double], around: Double, within: Double) -> Double? {
        guard !onsets.isEmpty else { return nil }
        func nearest(_ t: Double) -> Double {
            let after = partitionPoint(onsets) { $0 >= t }
            return min(after < onsets.count ? onsets[after] - t : .infinity, after > 0 ? t - onsets[after - 1] : .infinity)
        }
        var best: (lag: Double, score: Double)?
        let steps = Int((within * 100).rounded())
        for step in -steps...steps {
            let lag = around + Double(step) * 0.01
            let score = starts.reduce(0) { $0 + max(0, 1 - nearest($1 + lag) / onsetReach) }
            // Nearer the coverage's lag wins a tie.
            if score > 0, best == nil || score > best!.score + 1e-9 || (abs(score - best!.score) <= 1e-9 && abs(lag - around) < abs(best!.lag - around)) {
                best = (lag, score)
            }
        }
        return best?.lag
    }

    /// How far from a speech onset a cue start still counts as on it (seconds).
    static let onsetReach = 0.3

    /// Speech (or cue coverage) in 10 ms frames from `start`: +1 inside a span, −1 outside.
    struct Signal {
        static let frame = 0.01
        let frames: [Int8]
        let start: Double

        init(spans: [(Double, Double)]) {
            let first = spans.map(\.0).min() ?? 0, last = spans.map(\.1).max() ?? 0
            let start = max(0, first)
            var frames = [Int8](repeating: -1, count: max(1, Int(((last - start) / Self.frame).rounded(.up))))
            for (a, b) in spans {
                let lo = max(0, Int(((a - start) / Self.frame).rounded())), hi = min(frames.count, Int(((b - start) / Self.frame).rounded()))
                if lo < hi { for i in lo..<hi { frames[i] = 1 } }
            }
            self.frames = frames
            self.start = start
        }

        /// Mean agreement (−1…1) of `other` shifted by `lag` frames, over every `stride`-th of its frames.
        private func agreement(of other: Signal, lag: Int, stride: Int) -> Double {
            let base = Int(((other.start - start) / Self.frame).rounded()) + lag
            var total = 0, count = 0
            var i = 0
            while i < other.frames.count {
                let j = base + i
                total += Int(other.frames[i]) * Int(j >= 0 && j < frames.count ? frames[j] : -1)
                count += 1
                i += stride
            }
            return Double(total) / Double(max(1, count))
        }

        /// The lag (seconds) within `around ± within` at which `other` agrees best with this
        /// signal; its agreement; and its clarity, by how much it beats the best lag at least a
        /// second away (0: no peak).
        func bestLag(of other: Signal, around: Double, within: Double) -> (lag: Double, agreement: Double, clarity: Double) {
            // Half-second steps over every twentieth frame find the peak; 10 ms steps place it.
            let coarse = 50, sampling = 20
            let centre = Int((around / Self.frame).rounded()), reach = Int((within / Self.frame).rounded())
            let lags = Array(stride(from: centre - reach, through: centre + reach, by: coarse))
            let scores = lags.map { agreement(of: other, lag: $0, stride: sampling) }
            let peak = lags[scores.indices.max { scores[$0] < scores[$1] }!]
            var best = (lag: peak, value: -Double.infinity)
            for lag in (peak - coarse)...(peak + coarse) {
                let value = agreement(of: other, lag: lag, stride: 1)
                if value > best.value { best = (lag, value) }
            }
            let runnerUp = zip(lags, scores).filter { abs($0.0 - best.lag) >= 100 }.map(\.1).max()
            return (Double(best.lag) * Self.frame, best.value, runnerUp.map { max(0, best.value - $0) } ?? 1)
        }
    }
}
