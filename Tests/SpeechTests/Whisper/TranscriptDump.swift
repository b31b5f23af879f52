import CapforgeCore
import Foundation
import Testing
@testable import Speech

/// The Swift half of Scripts/validate-converter: transcribes the WAVs it names with the
/// converted model and writes {file: text} as JSON. Runs only when the script asks for it.
@Suite struct TranscriptDump {
    static let environment = ProcessInfo.processInfo.environment

    @Test(.enabled(if: environment["CAPFORGE_WHISPER_DUMP"] != nil, "run by Scripts/validate-converter"))
    func dumpTranscripts() throws {
        let output = URL(fileURLWithPath: try #require(Self.environment["CAPFORGE_WHISPER_DUMP"]))
        let wavs = try #require(Self.environment["CAPFORGE_WHISPER_DUMP_WAVS"]).split(separator: ":").map(String.init)
        let engine = try WhisperFixtures.tinyEnEngine.get()
        var transcripts: [String: String] = [:]
        for wav in wavs {
            let audio = try WhisperFixtures.readPCM16Mono(URL(fileURLWithPath: wav))
            transcripts[wav] = try engine.transcribe(audio, language: .english, cancellation: Cancellation())
                .map(\.text).joined(separator: " ")
        }
        try AtomicFile.write(try JSONSerialization.data(withJSONObject: transcripts, options: [.sortedKeys]), to: output, policy: OutputPolicy(ledgers: []))
        #expect(transcripts.values.allSatisfy { !$0.isEmpty })
    }
}
