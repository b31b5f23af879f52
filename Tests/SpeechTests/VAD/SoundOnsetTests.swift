import CapforgeCore
import Foundation
import Testing
@testable import Speech

/// A region the detector started late moves back to where its sound began after a pause, and
/// only then.
@Suite struct SoundOnsetTests {
    @Test func aLateStartMovesBackToTheSoundAfterSilence() {
        // Sound from 2.0 s after digital silence; the detector started the region at 3.5 s.
        let audio = burstAudio(seconds: 8, bursts: [(2.0, 7.0)])
        let regions = SoundOnset.extended([SpeechRegion(start: 3.5, end: 7.6, pauses: [5])], in: audio)
        #expect(regions.count == 1)
        #expect(abs(regions[0].start - (2.0 - SoundOnset.context)) < 0.03, "\(regions)")
        #expect(regions[0].end == 7.6 && regions[0].pauses == [5])
    }

    @Test func soundRunningOnFurtherBackIsLeftAlone() {
        // Sound for 6 s before the region (a music bed), and sound right up to a previous region.
        let audio = burstAudio(seconds: 12, bursts: [(0.0, 11.0)])
        let late = [SpeechRegion(start: 6.5, end: 11.6)]
        #expect(SoundOnset.extended(late, in: audio) == late)
        let joined = [SpeechRegion(start: 0, end: 5.0), SpeechRegion(start: 6.0, end: 11.6)]
        #expect(SoundOnset.extended(joined, in: audio) == joined)
    }

    @Test func aRegionThatStartsAfterItsPauseIsLeftAlone() {
        // The detector's padding already reaches back into the quiet before the sound.
        let audio = burstAudio(seconds: 6, bursts: [(2.0, 5.0)])
        let padded = [SpeechRegion(start: 1.4, end: 5.6)]
        #expect(SoundOnset.extended(padded, in: audio) == padded)
    }

    @Test func aMovedStartStopsAtThePreviousRegion() {
        // A short pause (0.4 s) between two regions, then sound the second region started late on.
        let audio = burstAudio(seconds: 10, bursts: [(0.5, 3.0), (3.4, 9.0)])
        let regions = SoundOnset.extended([SpeechRegion(start: 0.5, end: 3.2), SpeechRegion(start: 4.5, end: 9.6)], in: audio)
        #expect(regions[0] == SpeechRegion(start: 0.5, end: 3.2))
        #expect(regions[1].start >= 3.2 && regions[1].start < 3.4, "\(regions)")
    }
}
