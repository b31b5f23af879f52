import CapforgeCore
import Foundation
import Testing
import TestSupport
@testable import Speech

/// The batch's transcription path with the real tiny.en Whisper and the real Silero model.
@Suite struct SileroTranscriptionTests {
    let english = TierPlan(language: .english, mode: .modern, basicFallback: false)

    func transcriber(_ detector: any SpeechDetector) throws -> ChunkedTranscriber {
        let engines = TierEngines(modern: [try WhisperFixtures.tinyEnEngine.get()], basic: [], speechDetector: detector)
        return ChunkedTranscriber(engines: engines, calibration: CalibrationTable(engines: [:]))
    }

    @Test func musicYieldsNoWords() throws {
        let audio = try VADFixtures.audio("silence-music.mkv")
        let transcript = try transcriber(try VADFixtures.silero.get()).transcribe(audio, plan: english)
        #expect(transcript.words.isEmpty, "\(transcript.words.map(\.text))")
        #expect(transcript.chunks.isEmpty)
        #expect(transcript.speechDetector == "silero-v6.2.0")
    }

    @Test func readingsAreRecognisedWithEitherDetector() throws {
        let audio = try VADFixtures.audio("librivox.mp4")
        let reference = try String(contentsOf: VADFixtures.fixtures.appendingPathComponent("librivox.txt"), encoding: .utf8)
        func errors(_ detector: any SpeechDetector) throws -> (edits: Int, words: Int) {
            let transcript = try transcriber(detector).transcribe(audio, plan: english)
            #expect(transcript.speechDetector == detector.name)
            return WER.errors(reference: reference, hypothesis: transcript.words.map(\.text).joined(separator: " "))
        }
        // One 30 s clip moves tiny.en by a word either way with any change of edges, so the bound
        // is absolute; the chunked-against-whole comparison lives in Benchmarks/transcribe.
        let silero = try errors(try VADFixtures.silero.get())
        let energy = try errors(ChunkPlanner.defaultVAD)
        #expect(silero.edits <= 3, "Silero \(silero.edits)/\(silero.words) (energy VAD: \(energy.edits)/\(energy.words))")
        #expect(energy.edits <= 3)
    }
}
