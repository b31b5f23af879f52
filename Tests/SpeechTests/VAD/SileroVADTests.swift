import CapforgeCore
import Foundation
import Testing
@testable import Speech

@Suite struct SileroVADTests {
    @Test func regionsCoverEveryReadingAndNothingElse() throws {
        let audio = try VADFixtures.audio("librivox.mp4")
        let regions = try VADFixtures.silero.get().speechRegions(in: audio)
        let sentences = try VADFixtures.librivoxSentences()
        for sentence in sentences {
            let share = VADFixtures.covered(sentence.start, sentence.end, by: regions) / (sentence.end - sentence.start)
            #expect(share > 0.85, "\(sentence.text): only \(share) covered by \(regions)")
        }
        // Every region is speech of some reading (plus its padding), never the pauses alone.
        for region in regions {
            #expect(sentences.contains { region.start < $0.end + 0.3 && region.end > $0.start - 0.3 && region.duration > 0 }, "\(region)")
        }
        #expect(zip(regions, regions.dropFirst()).allSatisfy { $0.end < $1.start }, "ordered and apart: \(regions)")
    }

    /// Long audio is detected a block at a time (memory stays flat); blocks cutting through
    /// sentences must give the regions whole-file detection gives.
    @Test func blockwiseDetectionMatchesWholeFileDetection() throws {
        let audio = try VADFixtures.audio("librivox.mp4")
        let silero = try VADFixtures.silero.get()
        let whole = try silero.speechRegions(in: audio)
        let blockwise = try silero.speechRegions(across: audio, block: 7, context: 4)
        #expect(blockwise.count == whole.count, "\(blockwise) vs \(whole)")
        for (a, b) in zip(whole, blockwise) {
            #expect(abs(a.start - b.start) < 0.1 && abs(a.end - b.end) < 0.1, "\(a) vs \(b)")
        }
    }

    @Test func musicOverNoiseIsNotSpeech() throws {
        let audio = try VADFixtures.audio("silence-music.mkv")
        #expect(audio.duration > 59)
        #expect(try VADFixtures.silero.get().speechRegions(in: audio) == [])
    }

    @Test func silenceAndEmptyAudioHaveNoSpeech() throws {
        let silero = try VADFixtures.silero.get()
        #expect(try silero.speechRegions(in: MonoAudio(samples: [Float](repeating: 0, count: 48_000))) == [])
        #expect(try silero.speechRegions(in: MonoAudio(samples: [])) == [])
    }

    @Test func regionsFollowTheAudioTimeline() throws {
        let audio = try VADFixtures.audio("librivox.mp4")
        let shifted = MonoAudio(samples: audio.samples, startTime: 100)
        let silero = try VADFixtures.silero.get()
        let base = try silero.speechRegions(in: audio), moved = try silero.speechRegions(in: shifted)
        #expect(base.count == moved.count)
        #expect(zip(base, moved).allSatisfy { abs($1.start - $0.start - 100) < 1e-6 && abs($1.end - $0.end - 100) < 1e-6 })
    }

    /// Spans that meet met in a pause (the library splits padding that meets): joined, the
    /// meeting point kept as a pause where a window may open.
    @Test func spansAreClampedToTheAudioAndMeetingOnesJoinedAtAPause() {
        let audio = MonoAudio(samples: [Float](repeating: 0, count: 16_000 * 10), startTime: 5)
        let regions = SileroVAD.regions([(0, 1.5), (1.5, 3), (4, 6), (9.5, 10.2)], in: audio)
        #expect(regions == [SpeechRegion(start: 5, end: 8, pauses: [6.5]), SpeechRegion(start: 9, end: 11), SpeechRegion(start: 14.5, end: 15)])
    }

    /// A block edge joins two regions without a pause; the pauses inside each block are kept.
    @Test func blockwiseDetectionKeepsThePausesAndAddsNone() throws {
        let audio = try VADFixtures.audio("librivox.mp4")
        let silero = try VADFixtures.silero.get()
        let whole = try silero.speechRegions(in: audio).flatMap(\.pauses)
        let blockwise = try silero.speechRegions(across: audio, block: 7, context: 4).flatMap(\.pauses)
        #expect(!whole.isEmpty)
        #expect(blockwise.allSatisfy { pause in whole.contains { abs($0 - pause) < 0.1 } }, "\(blockwise) vs \(whole)")
        #expect(whole.filter { pause in !blockwise.contains { abs($0 - pause) < 0.1 } }.count <= 1, "\(blockwise) vs \(whole)")
    }

    @Test func aMissingModelSaysHowToInstallIt() {
        #expect {
            try SileroVAD(modelPath: "/nonexistent/\(SileroVAD.modelFileName)")
        } throws: { error in
            guard case SpeechError.modelMissing(_, let hint)? = error as? SpeechError else { return false }
            return hint.contains("Scripts/setup")
        }
    }

    @Test func theModelIsNotListedAsAWhisperModel() throws {
        let store = ModelStore(directory: VADFixtures.sileroModel.deletingLastPathComponent())
        #expect(try !store.list(digests: false).contains { $0.url.lastPathComponent == SileroVAD.modelFileName })
        #expect(try InstalledEngines.speechDetector(store: store).name == "silero-v6.2.0")
        let empty = ModelStore(directory: URL(fileURLWithPath: "/nonexistent"))
        #expect(try InstalledEngines.speechDetector(store: empty).name == "energy")
    }

    /// Why Silero is needed: frame energy takes the chords for speech.
    @Test func energyVADTakesMusicForSpeech() throws {
        let audio = try VADFixtures.audio("silence-music.mkv")
        #expect(!ChunkPlanner.defaultVAD.speechRegions(in: audio).isEmpty)
    }
}
