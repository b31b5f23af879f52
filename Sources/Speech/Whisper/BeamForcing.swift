import CapforgeCore
import Foundation

/// Decodes a window's next tokens on the running whisper_full's own state: the prompt's keys
/// and values are in its cache, and `logits(after:past:)` replaces what follows position `past`.
protocol WindowDecoder {
    func logits(after tokens: [Int32], past: Int) throws -> [Float]
}

/// The next-token scores libwhisper is about to pick from, which a hook may raise.
protocol NextTokenScores {
    func copied() -> [Float]
    /// Makes `id` the likeliest token; false when it already was.
    func force(_ id: Int32) -> Bool
}

/// Capforge's top-k beam search, run inside a greedy whisper_full so that everything else stays
/// libwhisper's: windows and seeking, segments, timestamps, token timing, DTW and temperature
/// fallback. At a window's first token the search runs on the library's own decoding state
/// (the encoder output and the prompt are there) and the state is put back as it was; then at
/// each step the planned token is raised to the top of the scores the library picks from.
/// A raised token's probability is the raised one in the library's output; `corrected` puts
/// back the probability the model gave it, which is what word confidence is made of.
final class BeamForcing {
    struct Setup {
        var search: TopKBeamSearch.Shape
        var rules: WhisperTokenRules
        /// Prompt tokens libwhisper decodes before a window's first token, and the last of them.
        var promptLength: Int
        var promptTail: Int32
        /// libwhisper's logprob_thold.
        var unsureBelow: Double
    }

    private struct ForcedStep {
        var id: Int32
        var probability: Float
        var raised: Bool
    }

    private let setup: Setup
    private let shouldStop: () -> Bool
    private(set) var report = BeamTally()
    /// Per window: segments the run had before it, and the forced steps of its last attempt.
    private var windows: [(segmentsBefore: Int, forced: [ForcedStep])] = []
    private var windowStart: Int64 = 0
    private var audioEnd: Int64 = 0
    private var attempts = 0
    private var plan: [PlannedToken]?

    init(_ setup: Setup, shouldStop: @escaping () -> Bool) {
        self.setup = setup
        self.shouldStop = shouldStop
    }

    /// Before each encoder pass. `lastSegmentEnd` (centiseconds) is where libwhisper's seek
    /// stands after a window that produced segments; `audioLength` is the run's in centiseconds.
    func windowBegins(segmentsSoFar: Int, lastSegmentEnd: Int64?, audioLength: Int64) {
        windows.append((segmentsSoFar, []))
        windowStart = max(windowStart, lastSegmentEnd ?? 0)
        audioEnd = audioLength
        attempts = 0
        plan = nil
    }

    /// Called before libwhisper picks each token of a window; `prefix` is what it picked so far.
    func beforeToken(prefix: [Int32], scores: some NextTokenScores, decoder: some WindowDecoder) {
        guard !windows.isEmpty else { return }
        if prefix.isEmpty {
            attempts += 1
            windows[windows.count - 1].forced = []
            // A retry at a higher temperature samples, as libwhisper always has.
            plan = attempts == 1 ? searched(firstScores: scores.copied(), decoder: decoder) : nil
        }
        guard let plan else { return }
        let step = prefix.count
        guard step < plan.count, step == 0 || prefix[step - 1] == plan[step - 1].id else {
            self.plan = nil
            report.failedWindows += 1
            report.beamWindows -= 1
            return
        }
        let token = plan[step]
        let raised = scores.force(token.id)
        windows[windows.count - 1].forced.append(ForcedStep(id: token.id, probability: expf(token.logProbability), raised: raised))
    }

    private func searched(firstScores: [Float], decoder: some WindowDecoder) -> [PlannedToken]? {
        let prompt = setup.promptLength, tail = setup.promptTail
        // Re-decoding the prompt's last token must give the scores libwhisper has: that checks
        // the prompt length, and afterwards it leaves the cache as libwhisper filled it.
        func restore() throws -> [Float] { try decoder.logits(after: [tail], past: prompt - 1) }
        guard let again = try? restore(), Self.agree(again, firstScores) else {
            report.failedWindows += 1
            return nil
        }
        var cached: [Int32] = []
        let windowStart = windowStart, audioEnd = audioEnd, firstTimestamp = setup.rules.firstTimestamp
        let search = TopKBeamSearch(shape: setup.search, rules: setup.rules) { id in
            // libwhisper ends a window at a timestamp within 0.1 s of the audio's end.
            id > firstTimestamp && windowStart + 2 * Int64(id - firstTimestamp) + 10 >= audioEnd
        }
        let best = try? search.run(firstLogits: firstScores) { sequences in
            if shouldStop() { throw CancellationError() }
            var scores = [[Float]](repeating: [], count: sequences.count)
            // Sorted, each sequence shares the longest prefix with its neighbour; the walk starts
            // from the end nearer what the cache holds.
            var order = sequences.indices.sorted(by: { sequences[$0].lexicographicallyPrecedes(sequences[$1]) })
            if cached.sharedPrefixLength(with: sequences[order.last!]) > cached.sharedPrefixLength(with: sequences[order.first!]) { order.reverse() }
            for index in order {
                let sequence = sequences[index]
                let from = min(cached.sharedPrefixLength(with: sequence), sequence.count - 1)
                scores[index] = try decoder.logits(after: Array(sequence[from...]), past: prompt + from)
                cached = sequence
            }
            return scores
        }
        guard (try? restore()) != nil, let best else {
            report.failedWindows += 1
            return nil
        }
        let mean = best.reduce(0) { $0 + Double($1.logProbability) } / Double(best.count)
        guard mean >= setup.unsureBelow else {
            report.unsureWindows += 1
            return nil
        }
        report.beamWindows += 1
        return best
    }

    /// The same position decoded alone or in the prompt's batch differs in rounding only (f16
    /// keys and values, other kernels): up to 0.12 in a logit of base, 0.01 on average, where
    /// another prompt length changes every logit by whole units.
    static func agree(_ decoded: [Float], _ given: [Float]) -> Bool {
        let allowed = given.indices.filter { given[$0] > -.infinity }
        guard decoded.count == given.count, !allowed.isEmpty else { return false }
        let meanDifference = allowed.reduce(Float(0)) { $0 + abs(decoded[$1] - given[$1]) } / Float(allowed.count)
        // The likeliest token libwhisper leaves allowed is the same.
        let top = { (scores: [Float]) in allowed.max { scores[$0] < scores[$1] } }
        return meanDifference <= 0.05 && top(decoded) == top(given)
    }

    /// `segments` from the run, with the model's own probability on every token that was raised.
    func corrected(_ segments: [DecodedSegment]) -> [DecodedSegment] {
        var segments = segments
        for (window, record) in windows.enumerated() where !record.forced.isEmpty {
            let end = window + 1 < windows.count ? windows[window + 1].segmentsBefore : segments.count
            var step = 0
            // A segment's tokens are the window's in order, less the timestamp that opens each
            // segment after the first.
            walk: for s in record.segmentsBefore..<min(end, segments.count) {
                for t in segments[s].tokens.indices {
                    let id = segments[s].tokens[t].id
                    while step < record.forced.count, record.forced[step].id != id, record.forced[step].id >= setup.rules.firstTimestamp {
                        step += 1
                    }
                    guard step < record.forced.count, record.forced[step].id == id else { break walk }
                    if record.forced[step].raised { segments[s].tokens[t].probability = record.forced[step].probability }
                    step += 1
                }
            }
        }
        return segments
    }
}
