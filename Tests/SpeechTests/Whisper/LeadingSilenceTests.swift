import CapforgeCore
import TestSupport
import Testing
@testable import Speech

/// A window's first words, timed into the silence before its first sound, start with the sound.
@Suite struct LeadingSilenceTests {
    // A window from 20.0 s: 0.55 s of silence, then sound.
    private let audio = burstAudio(seconds: 4, bursts: [(0.55, 3.5)], startTime: 20)

    @Test func wordsTimedIntoTheSilenceStartWithTheSound() throws {
        let sound = try #require(LeadingSilence.firstSound(in: audio))
        #expect(abs(sound - 20.55) <= 0.02, "\(sound)")
        let moved = LeadingSilence.words([word("An", 20.07, 20.32), word("identified", 20.59, 21.5), word("or", 21.6, 21.8)], in: audio)
        #expect(moved[0].start == sound && moved[0].end == 20.59, "a word wholly in the silence ends where the next one starts")
        #expect(Array(moved[1...]) == [word("identified", 20.59, 21.5), word("or", 21.6, 21.8)])

        let across = LeadingSilence.words([word("Unidentified", 20.07, 21.47)], in: audio)
        #expect(across == [word("Unidentified", sound, 21.47)], "a word reaching into the sound keeps its end")
    }

    @Test func wordsFarBeforeTheSoundOrAfterItAreLeftAlone() {
        let late = burstAudio(seconds: 6, bursts: [(3.0, 5.5)], startTime: 20)
        let written = [word("Thank", 20.1, 20.4), word("you.", 20.4, 20.7)]
        #expect(LeadingSilence.words(written, in: late) == written, "2.6 s before any sound: the guard's to judge")
        let timed = [word("So", 20.6, 20.8)]
        #expect(LeadingSilence.words(timed, in: audio) == timed)
        let silent = burstAudio(seconds: 2, bursts: [])
        #expect(LeadingSilence.words([word("Hm", 0.1, 0.3)], in: silent) == [word("Hm", 0.1, 0.3)])
    }
}
