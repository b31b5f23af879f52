import CapforgeCore
import Foundation
import Testing
@testable import Speech

/// A region the detector started late moves back to where its sound began after a pause, and
/// only then.
@Suite struct SoundOnsetTests {
    /// Sound that rises and falls four times a second, as syllables do, in each span.
    private func syllables(seconds: Double, _ spans: [(Double, Double)]) -> MonoAudio {
        let steady = burstAudio(seconds: seconds, bursts: spans)
        return MonoAudio(samples: steady.samples.enumerated().map { i, sample in
            sample * Float(0.05 + 0.95 * abs(sin(2 * Double.pi * 2 * Double(i) / 16_000)))
        }, startTime: 0)
    }

    @Test func aLateStartMovesBackToTheSoundAfterSilence() {
        // Sound from 2.0 s after digital silence; the detector started the region at 3.5 s.
        let audio = syllables(seconds: 8, [(2.0, 7.0)])
        let regions = SoundOnset.extended([SpeechRegion(start: 3.5, end: 7.6, pauses: [5])], in: audio)
        #expect(regions.count == 1)
        #expect(abs(regions[0].start - (2.0 - SoundOnset.context)) < 0.03, "\(regions)")
        #expect(regions[0].end == 7.6 && regions[0].pauses == [5])
    }

    @Test func soundRunningOnFurtherBackIsLeftAlone() {
        // Sound for 6 s before the region (a music bed), and sound right up to a previous region.
        let audio = syllables(seconds: 12, [(0.0, 11.0)])
        let late = [SpeechRegion(start: 6.5, end: 11.6)]
        #expect(SoundOnset.extended(late, in: audio) == late)
        let joined = [SpeechRegion(start: 0, end: 5.0), SpeechRegion(start: 6.0, end: 11.6)]
        #expect(SoundOnset.extended(joined, in: audio) == joined)
    }

    @Test func aRegionThatStartsAfterItsPauseIsLeftAlone() {
        // The detector's padding already reaches back into the quiet before the sound.
        let audio = syllables(seconds: 6, [(2.0, 5.0)])
        let padded = [SpeechRegion(start: 1.4, end: 5.6)]
        #expect(SoundOnset.extended(padded, in: audio) == padded)
    }

    @Test func aMovedStartStopsAtThePreviousRegion() {
        // A short pause (0.4 s) between two regions, then sound the second region started late on.
        let audio = syllables(seconds: 10, [(0.5, 3.0), (3.4, 9.0)])
        let regions = SoundOnset.extended([SpeechRegion(start: 0.5, end: 3.2), SpeechRegion(start: 4.5, end: 9.6)], in: audio)
        #expect(regions[0] == SpeechRegion(start: 0.5, end: 3.2))
        #expect(regions[1].start >= 3.2 && regions[1].start < 3.4, "\(regions)")
    }

    @Test func aSteadyToneBeforeAPauseIsNotAMissedStart() {
        // A 2 s ring ends 0.55 s before the speaker; the detector's padding reaches 50 ms into it.
        // Syllables there instead are a missed start.
        let padded = [SpeechRegion(start: 19.95, end: 25.6)]
        let ring = burstAudio(seconds: 26, bursts: [(18.0, 20.0)]).samples, speech = syllables(seconds: 26, [(20.55, 25.0)]).samples
        let audio = MonoAudio(samples: zip(ring, speech).map { $0 + $1 }, startTime: 0)
        #expect(SoundOnset.extended(padded, in: audio) == padded)
        let spoken = syllables(seconds: 26, [(18.0, 20.0), (20.55, 25.0)])
        #expect(abs(SoundOnset.extended(padded, in: spoken)[0].start - (18.0 - SoundOnset.context)) < 0.03)
    }
}
