import CapforgeCore
import Foundation
import Testing

@testable import Captions

@Suite struct CueBuilderPropertyTests {
    static let frameRates: [Double?] = [24, 25, 30, 60, nil]

    /// The streams are English speech, which the alphabetic scripts' profiles can all carry.
    @Test(arguments: CaptionProfile.builtIn.filter { $0.counting == nil })
    func builtCuesPassLintAndKeepEveryWord(profile: CaptionProfile) throws {
        var cueCount = 0
        var unnatural = 0
        var longestDelay = 0
        for (seed, fps) in zip(UInt64(1)...40, (0..<40).map { Self.frameRates[$0 % Self.frameRates.count] }) {
            let words = WordStreams.stream(seed: seed)
            let result = try CueBuilder(profile: profile, fps: fps).build(words: words)
            let rules = try CueRules(profile: profile, framesPerSecond: fps)
            #expect(result.violations.isEmpty, "seed \(seed) fps \(String(describing: fps)): \(result.violations.prefix(3))")
            #expect(rules.violations(in: result.cues).isEmpty)

            // Every word once, in order, and the text shows them in that order.
            #expect(result.cues.flatMap(\.words) == words, "seed \(seed)")
            for cue in result.cues {
                #expect(cue.lines.joined(separator: " ") == cue.words.map(\.text).joined(separator: " "))
                #expect(cue.start < cue.end)
            }
            for (cue, next) in zip(result.cues, result.cues.dropFirst()) {
                #expect(cue.end <= next.start, "overlap at \(cue.end) ms, seed \(seed)")
            }
            cueCount += result.cues.count
            unnatural += result.splits.filter { $0.reason == .noNaturalBreak }.count
            longestDelay = max(longestDelay, result.cues.map { $0.start - Int(($0.words[0].start * 1000).rounded()) }.max() ?? 0)
            #expect(!result.splits.contains { $0.reason == .wordTooWide || $0.reason == .wordTooLong })
            // The breaker passes its own lint: a line left open only where no other break fits.
            if let rules = BreakRules.forLanguage(.english) {
                let breaker = LineBreaker(maxWidth: profile.lineColumns, maxLines: profile.maxLines, rules: rules)
                for (number, cue) in result.cues.enumerated() {
                    let avoidable = Lint.phraseSplits(cue, number: number + 1, breaker: breaker)
                        .filter { $0.message.hasPrefix("line ") && !$0.message.contains("no break within") }
                    #expect(avoidable.isEmpty, "seed \(seed): \(cue.lines)")
                }
            }
        }
        print("[\(profile.name)] 40 streams: \(cueCount) cues, 0 violations, \(unnatural) splits without a natural break, longest delay \(longestDelay) ms")
    }
}
