import CapforgeCore
import Foundation
import Testing
@testable import Speech

/// Capforge's own beam search, on a made-up vocabulary: text tokens 0-9, end of text 10,
/// never-emitted specials 11-13, timestamps 14-19 (a window may open with the first three).
@Suite struct BeamSearchTests {
    static let rules = WhisperTokenRules(
        vocabularySize: 20, endOfText: 10, firstTimestamp: 14, neverEmitted: [11, 12, 13], blankAtStart: [10, 0], nonSpeech: [9],
        maxInitialTimestamp: 2)
    static let unlikely: Float = -50

    /// Raw scores where `likely` tokens get the given values and every other token is unlikely.
    static func logits(_ likely: [Int32: Float]) -> [Float] {
        (0..<20).map { likely[Int32($0)] ?? unlikely }
    }

    /// A model that can say "1" or "2" first; "1" is a shade likelier alone, but after it
    /// the model is lost among four words, while after "2" it is sure of "3", then the end.
    static func model(_ prefix: [Int32]) -> [Float] {
        switch prefix {
        case []: logits([1: 1.0, 2: 0.9])
        case [1]: logits([4: 0, 5: 0, 6: 0, 7: 0])
        case [2]: logits([3: 5])
        default: logits([10: 5])
        }
    }

    private func search(width: Int, margin: Double? = nil, horizon: Int? = nil) -> TopKBeamSearch {
        TopKBeamSearch(shape: .init(width: width, maxTokens: 20, pruningMargin: margin, horizon: horizon), rules: Self.rules) { _ in false }
    }

    private func ids(_ search: TopKBeamSearch, calls: inout [[[Int32]]]) -> [Int32]? {
        var seen: [[[Int32]]] = []
        let best = search.run(firstLogits: Self.model([])) { sequences in
            seen.append(sequences)
            return sequences.map(Self.model)
        }
        calls = seen
        return best?.map(\.id)
    }

    @Test func theBeamFindsTheSentenceGreedyDecodingMisses() {
        var calls: [[[Int32]]] = []
        #expect(ids(search(width: 1), calls: &calls)?.first == 1)
        #expect(ids(search(width: 3), calls: &calls) == [2, 3, 10])
    }

    @Test func candidatesFarBehindThePrunedBeamAreDropped() {
        var calls: [[[Int32]]] = []
        // "2" trails "1" by 0.1 nats: a margin of 0.05 keeps only "1", one of 0.5 keeps both.
        #expect(ids(search(width: 3, margin: 0.05), calls: &calls)?.first == 1)
        #expect(calls.allSatisfy { $0.allSatisfy { $0.first == 1 } })
        #expect(ids(search(width: 3, margin: 0.5), calls: &calls) == [2, 3, 10])
    }

    @Test func aBeamThatDiffersTooLongIsDropped() {
        // Two ways of writing the same words that never meet again: "4 5 6 7..." and "8 5 6 7...".
        func model(_ prefix: [Int32]) -> [Float] {
            guard let first = prefix.first else { return Self.logits([4: 1, 8: 0.9]) }
            let next: Int32 = prefix.count < 8 ? [5, 6, 7][prefix.count % 3] : 10
            return Self.logits([next: 5, (first == 4 ? 3 : 2): 0])
        }
        for horizon in [2, 4] {
            var longest = 0
            let best = search(width: 4, horizon: horizon).run(firstLogits: model([])) { sequences in
                let leader = sequences[0]
                longest = max(longest, sequences.map { $0.count - zip($0, leader).prefix { $0 == $1 }.count }.max() ?? 0)
                return sequences.map(model)
            }
            #expect(longest <= horizon)
            #expect(best?.first?.id == 4)
        }
    }

    @Test func theRulesForbidWhatWhisperNeverWrites() {
        let flat = [Float](repeating: 0, count: 20)
        let start = Self.rules.logProbabilities(flat, after: [])
        // No end of text, blank or special at the start, and no late opening timestamp.
        for id in [0, 10, 11, 12, 13, 9, 17, 18, 19] { #expect(start[id] == -.infinity, "token \(id)") }
        // With six timestamps the three allowed outweigh any one text token, so a timestamp it is.
        #expect(start[14] > -.infinity && start[1] == -.infinity)

        let text = Self.logits([1: 5, 2: 4, 10: 3])
        // After text and one timestamp, either its pair or the end of text comes, not text.
        let afterClosing = Self.rules.logProbabilities(text, after: [14, 1, 16])
        #expect(afterClosing[1] == -.infinity && afterClosing[10] > -.infinity)
        // After a pair of timestamps, text: no third timestamp.
        let afterPair = Self.rules.logProbabilities(Self.logits([1: 0, 17: 5]), after: [14, 1, 16, 16])
        #expect(afterPair[17] == -.infinity && afterPair[1] > -.infinity)
        // Time never goes back.
        let later = Self.rules.logProbabilities(Self.logits([15: 5, 18: 4]), after: [14, 1, 17, 17, 2])
        #expect(later[15] == -.infinity && later[16] == -.infinity && later[17] > -.infinity && later[18] > -.infinity)
        // The probabilities left are a distribution.
        let total = later.filter { $0 > -.infinity }.reduce(Float(0)) { $0 + expf($1) }
        #expect(abs(total - 1) < 1e-4)
    }

    @Test func likeliestKeepsOrderAndSkipsForbidden() {
        let picked = TopKBeamSearch.likeliest(3, of: [-1, -.infinity, -0.5, -3, -0.7])
        #expect(picked.map(\.id) == [2, 4, 0])
        #expect(picked.map(\.logProbability) == [-0.5, -0.7, -1])
    }
}

/// The beam search run inside libwhisper's greedy decoding, against a made-up model: what it
/// raises, what it gives up on, and the probabilities it puts back.
@Suite struct BeamForcingTests {
    /// A decoding state: the scores after the prompt (length 1) and each window prefix.
    final class FakeState: WindowDecoder {
        var cache: [Int32] = [7]
        var calls = 0
        var promptScores: [Float]

        init(promptScores: [Float] = BeamSearchTests.model([])) { self.promptScores = promptScores }

        func logits(after tokens: [Int32], past: Int) throws -> [Float] {
            calls += 1
            cache = Array(cache.prefix(past)) + tokens
            return cache.count == 1 ? promptScores : BeamSearchTests.model(Array(cache.dropFirst()))
        }
    }

    final class FakeScores: NextTokenScores {
        var values: [Float]
        var raised: [Int32] = []
        init(_ values: [Float]) { self.values = values }
        func copied() -> [Float] { values }
        func force(_ id: Int32) -> Bool {
            guard values[Int(id)] <= values.enumerated().filter { $0.offset != Int(id) }.map(\.element).max()! else { return false }
            raised.append(id)
            return true
        }
    }

    private func forcing() -> BeamForcing {
        BeamForcing(
            .init(search: .init(width: 3, maxTokens: 20), rules: BeamSearchTests.rules, promptLength: 1, promptTail: 7, unsureBelow: -1),
            shouldStop: { false })
    }

    private func token(_ id: Int32, _ probability: Float) -> DecodedToken {
        DecodedToken(id: id, bytes: [], probability: probability, start: 0, end: 0, dtwTime: -1)
    }

    @Test func plansTheWindowRaisesItsTokensAndPutsTheCacheBack() {
        let beam = forcing(), state = FakeState()
        beam.windowBegins(segmentsSoFar: 0, lastSegmentEnd: nil, audioLength: 3000)
        // libwhisper would pick "1"; the beam plans "2 3", and each step raises what it planned.
        let first = FakeScores(BeamSearchTests.model([]))
        beam.beforeToken(prefix: [], scores: first, decoder: state)
        #expect(first.raised == [2])
        #expect(state.cache == [7], "the cache holds the prompt alone again")
        let second = FakeScores(BeamSearchTests.model([2]))
        beam.beforeToken(prefix: [2], scores: second, decoder: state)
        #expect(second.raised.isEmpty, "3 is already the likeliest after 2")
        #expect(beam.report == BeamTally(beamWindows: 1))

        // The raised "2" comes back from libwhisper with the raised probability; the model's is put back.
        let segment = DecodedSegment(start: 0, end: 100, noSpeechProbability: 0, tokens: [token(2, 0.5), token(3, 0.99)])
        let corrected = beam.corrected([segment])
        #expect(abs(corrected[0].tokens[0].probability - expf(-0.744)) < 0.01)
        #expect(corrected[0].tokens[1].probability == 0.99)
    }

    @Test func aRefusedTokenOrAWrongPromptLeavesTheWindowToLibwhisper() {
        let beam = forcing(), state = FakeState()
        beam.windowBegins(segmentsSoFar: 0, lastSegmentEnd: nil, audioLength: 3000)
        beam.beforeToken(prefix: [], scores: FakeScores(BeamSearchTests.model([])), decoder: state)
        // libwhisper picked "1" where "2" was planned: nothing more is raised.
        let after = FakeScores(BeamSearchTests.model([1]))
        beam.beforeToken(prefix: [1], scores: after, decoder: state)
        #expect(after.raised.isEmpty)
        #expect(beam.report.failedWindows == 1 && beam.report.beamWindows == 0)

        // Scores that do not match the prompt's: the search does not run.
        let other = forcing()
        other.windowBegins(segmentsSoFar: 0, lastSegmentEnd: nil, audioLength: 3000)
        let scores = FakeScores(BeamSearchTests.logits([5: 3]))
        other.beforeToken(prefix: [], scores: scores, decoder: FakeState())
        #expect(scores.raised.isEmpty && other.report.failedWindows == 1)
    }

    @Test func aRetryAtHigherTemperatureSamplesUntouched() {
        let beam = forcing(), state = FakeState()
        beam.windowBegins(segmentsSoFar: 0, lastSegmentEnd: nil, audioLength: 3000)
        beam.beforeToken(prefix: [], scores: FakeScores(BeamSearchTests.model([])), decoder: state)
        let calls = state.calls
        let retry = FakeScores(BeamSearchTests.model([]))
        beam.beforeToken(prefix: [], scores: retry, decoder: state)
        #expect(retry.raised.isEmpty && state.calls == calls)
    }
}
