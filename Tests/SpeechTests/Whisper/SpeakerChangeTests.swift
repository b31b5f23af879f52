import CapforgeCore
import Foundation
import Testing
import TestSupport
@testable import Speech

/// Two real speakers, the second starting the moment the first stops, through the real speech
/// detector, chunk planner and Whisper: no word may be lost where one voice hands over to the
/// other (a region boundary there used to cut the second speaker's first words). The limit
/// catches a hang: alone the test takes about 10 s, but beside the suite's other Whisper runs on
/// two AVX2-only cores it took more than 3 minutes.
@Suite(.serialized, .timeLimit(.minutes(30)))
struct SpeakerChangeTests {
    /// `audio` without the quiet before its first and after its last 20 ms frame above -45 dBFS.
    func trimmed(_ audio: MonoAudio) -> [Float] {
        let frame = MonoAudio.sampleRate / 50
        let loud = stride(from: 0, to: audio.samples.count, by: frame).filter { start in
            let piece = audio.samples[start..<min(audio.samples.count, start + frame)]
            let power = piece.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(piece.count)
            return 10 * log10(power + 1e-12) > -45
        }
        guard let first = loud.first, let last = loud.last else { return [] }
        return Array(audio.samples[first..<min(audio.samples.count, last + frame)])
    }

    /// The two_cities reading (the fixtures' second speaker) as 16 kHz mono.
    func twoCities() throws -> MonoAudio {
        let wav = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-two-cities-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: wav) }
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-v", "error", "-nostdin", "-i", WhisperFixtures.repositoryRoot.appendingPathComponent("Fixtures/two_cities.webm").path,
                            "-vn", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-bitexact", wav.path]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        guard ffmpeg.terminationStatus == 0 else { throw WhisperFixtures.WAVError(description: "ffmpeg failed (\(ffmpeg.terminationStatus))") }
        return try WhisperFixtures.readPCM16Mono(wav)
    }

    @Test func aSecondSpeakerRightAfterTheFirstKeepsEveryWord() throws {
        let engine = try WhisperFixtures.tinyEnEngine.get()
        let first = try #require(try WhisperFixtures.librivoxClips().first { $0.name.hasSuffix("0870") })
        let secondText = try String(contentsOf: WhisperFixtures.repositoryRoot.appendingPathComponent("Fixtures/two_cities.txt"), encoding: .utf8)
        let joined = MonoAudio(samples: [Float](repeating: 0, count: MonoAudio.sampleRate) + trimmed(first.audio) + trimmed(try twoCities()))
        let transcriber = ChunkedTranscriber(
            engines: TierEngines(modern: [engine], basic: [], speechDetector: try VADFixtures.silero.get()),
            calibration: MeasuredCalibration.table)
        let transcript = try transcriber.transcribe(joined, plan: TierPlan(language: .english, mode: .modern, basicFallback: false))
        let heard = WER.words(transcript.words.map(\.text).joined(separator: " "))
        let text = heard.joined(separator: " ")
        // Where the voices meet: the first reader's last words, then the second's first.
        #expect(text.contains("in his power to do for them it was the best of times"), "\(text)")
        let errors = WER.errors(reference: first.reference + " " + secondText, hypothesis: heard.joined(separator: " "))
        #expect(errors.edits * 20 <= errors.words, "\(errors.edits) of \(errors.words): \(text)")
    }
}
