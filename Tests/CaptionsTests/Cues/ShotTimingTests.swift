import CapforgeCore
@testable import Captions
import Foundation
import Testing

/// Cues timed to shot changes at 25 fps (a frame is 40 ms; 12 frames 480 ms), and the harder
/// rules that keep a cue where it was.
@Suite struct ShotTimingTests {
    static let rules = try! CueRules(profile: .netflixEnglish, framesPerSecond: 25)

    @Test func inTimesMoveOntoAChangeAndOutTimesEndTwoFramesBeforeOne() {
        let timing = ShotTiming(changes: [2.0, 6.2, 9.0], rules: Self.rules)
        let cues = [Cue(start: 2200, end: 5900, lines: ["A cue that starts after a cut"]), Cue(start: 8800, end: 11000, lines: ["Before a cut"])]
        let (timed, kept) = timing.apply(cues)
        // 2.2 s is 5 frames after the cut at 2.0; 5.9 s is 7 frames before the one at 6.2.
        #expect(timed[0].start == 2000 && timed[0].end == 6120)
        // 8.8 s is 5 frames before the cut at 9.0: the cue starts on it.
        #expect(timed[1].start == 9000)
        #expect(kept.isEmpty)
        #expect(timed.flatMap(timing.problems).isEmpty)
        #expect(cues.flatMap(timing.problems).count == 3)
    }

    @Test func aHarderRuleKeepsTheCueAndSaysWhy() {
        // Starting on the cut at 1.3 s would leave this cue 700 ms: under its reading time.
        let timing = ShotTiming(changes: [1.3], rules: Self.rules)
        let cue = Cue(start: 1000, end: 2000, lines: ["Twenty-six characters here"])
        let (timed, kept) = timing.apply([cue])
        #expect(timed == [cue])
        #expect(kept.count == 1 && kept[0].reason == .shotChange && kept[0].message.contains("under the"), "\(kept)")
    }

    @Test func twoCuesChainAcrossACut() {
        // The second cue starts 4 frames after a cut the first runs over: the first ends 2 frames before it.
        let timing = ShotTiming(changes: [5.0], rules: Self.rules)
        let cues = [Cue(start: 1000, end: 5100, lines: ["First"]), Cue(start: 5160, end: 8000, lines: ["Second"])]
        let (timed, _) = timing.apply(cues)
        #expect(timed[0].end == 4920 && timed[1].start == 5000)
        #expect(timed.flatMap(timing.problems).isEmpty)
    }
}
