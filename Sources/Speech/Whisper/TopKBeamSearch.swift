/// One token a beam search chose, with its log-probability under Whisper's rules.
struct PlannedToken: Equatable, Sendable {
    var id: Int32
    var logProbability: Float
}

/// Beam search over one Whisper window as openai-whisper and CTranslate2 run it: every beam is
/// extended by its `width + 1` likeliest next tokens, the `width` best unfinished sequences by
/// summed log-probability go on, and the search ends once `width` sequences have finished; the
/// finished one with the best mean log-probability per token wins. (libwhisper 1.8.5's own beam
/// draws each beam's candidates by sampling instead, which measured worse than greedy decoding.)
struct TopKBeamSearch {
    struct Shape: Equatable, Sendable {
        var width: Int
        /// libwhisper gives a window at most this many tokens before it calls the decoding stuck.
        var maxTokens: Int
        /// Candidates whose summed log-probability trails the step's best by more than this are
        /// dropped (nil: none are). Where the model is sure one beam remains, so the search costs
        /// little more than greedy decoding; it widens where the model hesitates.
        var pruningMargin: Double? = nil
        /// A beam that has differed from the step's best for more tokens than this is dropped
        /// (nil: none is). Such a beam mostly says the same words another way (a comma for a
        /// full stop) and seldom wins, but each step re-decodes every token where it differs.
        var horizon: Int? = nil
    }

    let shape: Shape
    let rules: WhisperTokenRules
    /// Whether a sequence ends at this token besides the end of text (a timestamp at the audio's end).
    let endsAt: (Int32) -> Bool

    private struct Beam {
        var tokens: [PlannedToken]
        var sum: Double
        var ids: [Int32] { tokens.map(\.id) }
        var meanLogProbability: Double { sum / Double(max(1, tokens.count)) }

        /// How many of its last tokens are not `other`'s.
        func tokensDiffering(from other: Beam) -> Int { tokens.count - ids.sharedPrefixLength(with: other.ids) }
    }

    /// The best finished token sequence; nil when none finished within `maxTokens` (a window
    /// that loops, which libwhisper's own fallback handles). `firstLogits` are the model's
    /// scores after the prompt; `logits(sequences)` returns the scores after each sequence.
    func run(firstLogits: [Float], logits: ([[Int32]]) throws -> [[Float]]) rethrows -> [PlannedToken]? {
        var beams = [Beam(tokens: [], sum: 0)]
        var scores = [firstLogits]
        var finished: [Beam] = []
        for _ in 0..<shape.maxTokens {
            var candidates: [(beam: Int, token: PlannedToken, sum: Double)] = []
            for (index, beam) in beams.enumerated() {
                let logProbabilities = rules.logProbabilities(scores[index], after: beam.ids)
                for token in Self.likeliest(shape.width + 1, of: logProbabilities) {
                    candidates.append((index, token, beam.sum + Double(token.logProbability)))
                }
            }
            // Ties go to the earlier beam, then the lower id, so a run is reproducible.
            candidates.sort { ($0.sum, -$0.beam, -$0.token.id) > ($1.sum, -$1.beam, -$1.token.id) }
            var next: [Beam] = []
            var newlyFinished: [Beam] = []
            let floor = shape.pruningMargin.map { (candidates.first?.sum ?? 0) - $0 } ?? -.infinity
            for candidate in candidates where candidate.sum >= floor {
                let extended = Beam(tokens: beams[candidate.beam].tokens + [candidate.token], sum: candidate.sum)
                if candidate.token.id == rules.endOfText || endsAt(candidate.token.id) {
                    newlyFinished.append(extended)
                } else if let leader = next.first, let horizon = shape.horizon, extended.tokensDiffering(from: leader) > horizon {
                    continue
                } else {
                    next.append(extended)
                    if next.count == shape.width { break }
                }
            }
            finished += newlyFinished.prefix(shape.width - finished.count)
            if finished.count >= shape.width || next.isEmpty { break }
            beams = next
            scores = try logits(beams.map(\.ids))
        }
        return finished.max { $0.meanLogProbability < $1.meanLogProbability }?.tokens
    }

    /// The `count` likeliest allowed tokens, likeliest first.
    static func likeliest(_ count: Int, of logProbabilities: [Float]) -> [PlannedToken] {
        var best: [PlannedToken] = []
        best.reserveCapacity(count + 1)
        for (id, value) in logProbabilities.enumerated() where value > -.infinity {
            guard best.count < count || value > best[best.count - 1].logProbability else { continue }
            let at = best.firstIndex { value > $0.logProbability } ?? best.count
            best.insert(PlannedToken(id: Int32(id), logProbability: value), at: at)
            if best.count > count { best.removeLast() }
        }
        return best
    }
}

extension Array where Element == Int32 {
    /// How many tokens from the start both sequences hold alike.
    func sharedPrefixLength(with other: [Int32]) -> Int {
        zip(self, other).prefix { $0 == $1 }.count
    }
}
