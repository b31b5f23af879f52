import CapforgeCore
import Foundation

/// What re-timing found: the map, the new time of each cue, and what could not be placed.
public struct SyncResult: Sendable {
    public enum Evidence: String, Codable, Sendable {
        /// The cues' text matched against recognised words.
        case words
        /// The cues' coverage matched against where speech is.
        case speech
    }

    public var map: TimingMap
    public var evidence: Evidence
    /// Per entry, in file order: its time on the media, or nil where it cannot be placed.
    public var times: [(start: Int, end: Int)?]
    /// Entries whose words were found in the speech (`words` evidence only).
    public var matched: Int
    /// Entries left out: mapped before the media starts or after it ends, or onto a cue placed
    /// by its own words (their stretch is not in this copy).
    public var unplaced: [Int]
    /// Entries whose end was brought in so as not to overlap the next.
    public var shortened: Int
}

/// Finds the timing map from a subtitle file to the speech of a copy of its media, and places
/// each cue by it: a constant offset, a frame-rate conversion, and splits.
public enum SubtitleSync {
    /// By matching the cues' words to recognised `words`; nil when too few match to say (the
    /// subtitles may be in another language than the speech).
    public static func byWords(_ entries: [RetimableSubtitles.Entry], words: [Word], mediaEnd: Int?) -> SyncResult? {
        let anchors = WordAnchors.find(entries: entries, words: words)
        let matchedEntries = Set(anchors.map(\.entry))
        // Fewer than a tenth of the cues (and fewer than three) is chance, not a match.
        guard matchedEntries.count >= max(3, entries.count / 10) else { return nil }
        let fit = bestFit(entries: entries, anchors: anchors)
        return place(entries, fit: fit, anchored: matchedEntries, evidence: .words, mediaEnd: mediaEnd)
    }

    /// By where speech is: the cues' coverage slid along the speech regions (whole-file
    /// offset and rate, then blocks of cues for splits).
    public static func bySpeech(_ entries: [RetimableSubtitles.Entry], speech: [TimeSpan], mediaEnd: Int?) -> SyncResult {
        let anchors = SpeechAnchors.find(entries: entries, speech: speech)
        let fit = bestFit(entries: entries, anchors: anchors)
        return place(entries, fit: fit, anchored: [], evidence: .speech, mediaEnd: mediaEnd)
    }

    /// A point the subtitles' clock and the media's agree on: subtitle time `subtitle` is media
    /// time `media`, for entry `entry`, worth `weight`.
    struct Anchor {
        var entry: Int
        var subtitle: Double
        var media: Double
        var weight: Double
    }

    struct Fit {
        var map: TimingMap
        /// Each entry's segment.
        var segmentOf: [Int]
    }

    /// The rate among the candidates whose piecewise-constant offsets explain the anchors at
    /// the least cost.
    static func bestFit(entries: [RetimableSubtitles.Entry], anchors: [Anchor]) -> Fit {
        var best: (cost: Double, fit: Fit)?
        // A conversion that moves the last anchor less than a second against the first cannot be
        // told from the noise of word times (four cues over 10 s once fitted 23.976/25).
        let span = (anchors.map(\.subtitle).max() ?? 0) - (anchors.map(\.subtitle).min() ?? 0)
        let starts = entries.map(\.start)
        for candidate in TimingMap.candidateRates where candidate.name == nil || abs(candidate.rate - 1) * span >= 1 {
            let (cost, fit) = OffsetSegments.fit(anchors, rate: candidate.rate, rateName: candidate.name, starts: starts)
            // A conversion must explain the anchors clearly better than none (ties keep rate 1).
            if best == nil || cost < best!.cost * 0.9 { best = (cost, fit) }
        }
        return best?.fit ?? Fit(map: TimingMap(rate: 1, segments: [.init(from: .min, offset: 0)]), segmentOf: entries.map { _ in 0 })
    }

    /// Each entry mapped by its segment, kept within the media and off the cues placed by
    /// their own words; ends brought in where the next cue would be overlapped.
    static func place(_ entries: [RetimableSubtitles.Entry], fit: Fit, anchored: Set<Int>, evidence: SyncResult.Evidence, mediaEnd: Int?) -> SyncResult {
        let mapped = entries.indices.map { index in
            let segment = fit.segmentOf[index]
            return (start: fit.map.map(entries[index].start, segment: segment), end: fit.map.map(entries[index].end, segment: segment))
        }
        var times: [(start: Int, end: Int)?] = mapped
        var unplaced: [Int] = []
        // Matched cues by start, to find those an unmatched cue lands on.
        let matched = anchored.sorted { mapped[$0].start < mapped[$1].start }
        let matchedStarts = matched.map { mapped[$0].start }
        for index in entries.indices {
            let time = mapped[index]
            let outside = time.end <= 0 || (mediaEnd.map { time.start >= $0 } ?? false)
            // An unmatched cue at a split that lands on a matched cue of the other side belongs to
            // a stretch this copy lacks. Matched cues seldom overlap one another, so the few
            // starting last before this one ends are the ones it can land on.
            var collides = false
            if fit.map.segments.count > 1, !anchored.contains(index) {
                let before = partitionPoint(matchedStarts) { $0 >= time.end }
                for other in matched[max(0, before - 16)..<before] where fit.segmentOf[other] != fit.segmentOf[index] && mapped[other].end > time.start {
                    collides = true
                }
            }
            if outside || collides {
                times[index] = nil
                unplaced.append(index)
            } else {
                times[index] = (max(0, time.start), mediaEnd.map { min($0, time.end) } ?? time.end)
            }
        }
        // Overlaps the original did not have (a split's two sides meeting) end at the next cue.
        var shortened = 0
        let order = entries.indices.filter { times[$0] != nil }.sorted { times[$0]!.start < times[$1]!.start }
        for (current, next) in zip(order, order.dropFirst()) {
            let overlappedBefore = entries[current].end > entries[next].start && entries[current].start <= entries[next].start
            if let a = times[current], let b = times[next], a.end > b.start, !overlappedBefore, b.start > a.start {
                times[current] = (a.start, b.start)
                shortened += 1
            }
        }
        return SyncResult(map: fit.map, evidence: evidence, times: times, matched: anchored.count, unplaced: unplaced, shortened: shortened)
    }
}

/// The first index of sorted `values` at which `predicate` holds (it holds from there on).
func partitionPoint<T>(_ values: [T], _ predicate: (T) -> Bool) -> Int {
    var low = 0, high = values.count
    while low < high {
        let middle = (low + high) / 2
        if predicate(values[middle]) { high = middle } else { low = middle + 1 }
    }
    return low
}

/// Piecewise-constant offsets over the entries in file order, found by a Viterbi pass over a
/// grid of offsets: a change of offset costs as much as a few cues in plain disagreement.
enum OffsetSegments {
    /// Grid step, milliseconds.
    static let step = 40.0
    /// An anchor further than this from its segment's offset costs no more (seconds): a wrong
    /// match must not drag the offset.
    static let cap = 1.0
    /// The cost of a split, in capped seconds of disagreement.
    static let splitPenalty = 6.0
    static let maxStates = 4000
    /// Traceback cells (4 bytes each) of the whole pass.
    static let maxCells = 16_000_000

    /// `starts`: every entry's subtitle start, in file order.
    static func fit(_ anchors: [SubtitleSync.Anchor], rate: Double, rateName: String?, starts: [Int]) -> (cost: Double, fit: SubtitleSync.Fit) {
        let entries = starts.count
        let empty = SubtitleSync.Fit(map: TimingMap(rate: rate, rateName: rateName, segments: [.init(from: .min, offset: 0)]), segmentOf: Array(repeating: 0, count: entries))
        guard !anchors.isEmpty else { return (.infinity, empty) }
        // One observation per entry: its anchors' weighted median offset.
        var byEntry: [Int: [(offset: Double, weight: Double)]] = [:]
        for anchor in anchors { byEntry[anchor.entry, default: []].append((anchor.media - rate * anchor.subtitle, anchor.weight)) }
        let observed = byEntry.keys.sorted().map { entry in (entry: entry, offset: weightedMedian(byEntry[entry]!), weight: byEntry[entry]!.map(\.weight).reduce(0, +)) }
        let sortedOffsets = observed.map(\.offset).sorted()
        // The grid spans the observed offsets, outliers aside.
        let low = sortedOffsets[sortedOffsets.count / 100] - cap, high = sortedOffsets[sortedOffsets.count - 1 - sortedOffsets.count / 100] + cap
        // Past `maxStates` (fewer, for many cues) the grid coarsens, bounding time and memory
        // whatever the anchors say.
        let stateLimit = max(2, min(maxStates, maxCells / observed.count))
        let spacing = max(step, (high - low) * 1000 / Double(stateLimit - 1))
        let states = max(1, Int(((high - low) * 1000 / spacing).rounded(.up)) + 1)
        let grid = (0..<states).map { low + Double($0) * spacing / 1000 }

        var cost = [Double](repeating: 0, count: states)
        var back = [[Int32]]()
        back.reserveCapacity(observed.count)
        for (index, observation) in observed.enumerated() {
            let weight = min(observation.weight, 4)
            var previousBest = 0
            if index > 0 { for state in 1..<states where cost[state] < cost[previousBest] { previousBest = state } }
            let jump = index > 0 ? cost[previousBest] + splitPenalty : 0
            var from = [Int32](repeating: 0, count: states)
            for state in 0..<states {
                let stay = cost[state]
                let (base, origin) = index > 0 && jump < stay ? (jump, previousBest) : (stay, state)
                from[state] = Int32(origin)
                cost[state] = base + weight * min(abs(observation.offset - grid[state]), cap)
            }
            back.append(from)
        }
        var state = (0..<states).min { cost[$0] < cost[$1] }!
        let total = cost[state]
        var stateOf = [Int](repeating: 0, count: observed.count)
        for index in stride(from: observed.count - 1, through: 0, by: -1) {
            stateOf[index] = state
            state = Int(back[index][state])
        }
        // Segments: runs of one state; each offset refined to its observations' weighted median.
        var runs: [(firstEntry: Int, observations: [(offset: Double, weight: Double)])] = []
        for (index, observation) in observed.enumerated() {
            if index == 0 || stateOf[index] != stateOf[index - 1] { runs.append((observation.entry, [])) }
            runs[runs.count - 1].observations.append((observation.offset, observation.weight))
        }
        // Entries take the segment of the nearest observed entry at or before them (the first
        // segment before any), a split falling at the first entry of the new segment.
        var segmentOf = [Int](repeating: 0, count: entries)
        for (segment, run) in runs.enumerated().dropFirst() {
            for entry in run.firstEntry..<entries { segmentOf[entry] = segment }
        }
        let segments = runs.enumerated().map { index, run in
            TimingMap.Segment(from: index == 0 ? .min : starts[run.firstEntry], offset: Int((weightedMedian(run.observations) * 1000).rounded()))
        }
        return (total, SubtitleSync.Fit(map: TimingMap(rate: rate, rateName: rateName, segments: segments), segmentOf: segmentOf))
    }

    static func weightedMedian(_ values: [(offset: Double, weight: Double)]) -> Double {
        let sorted = values.sorted { $0.offset < $1.offset }
        let half = sorted.map(\.weight).reduce(0, +) / 2
        var running = 0.0
        for value in sorted {
            running += value.weight
            if running >= half { return value.offset }
        }
        return sorted.last?.offset ?? 0
    }
}
