import CapforgeCore
import Foundation
import Media
@testable import Speech

/// Real inputs for the speech-detector tests: the Silero model Scripts/setup installs and the
/// project's fixture media, decoded through the product's own extractor.
enum VADFixtures {
    static let fixtures = WhisperFixtures.repositoryRoot.appendingPathComponent("Fixtures")
    static let sileroModel = WhisperFixtures.repositoryRoot.appendingPathComponent(".deps/models/\(SileroVAD.modelFileName)")

    /// One detector for the suite; it serialises its callers.
    static let silero: Result<SileroVAD, Error> = Result { try SileroVAD(modelPath: sileroModel.path) }

    static func audio(_ fixture: String) throws -> MonoAudio {
        try AudioExtractor(path: fixtures.appendingPathComponent(fixture).path).extractAll().audio
    }

    struct Sentence {
        var start: Double
        var end: Double
        var text: String
    }

    /// The readings in librivox.mp4, from librivox.tsv (header line first).
    static func librivoxSentences() throws -> [Sentence] {
        try String(contentsOf: fixtures.appendingPathComponent("librivox.tsv"), encoding: .utf8)
            .split(separator: "\n").dropFirst().map { line in
                let fields = line.split(separator: "\t").map(String.init)
                return Sentence(start: Double(fields[0])!, end: Double(fields[1])!, text: fields[2])
            }
    }

    /// Seconds of `[start, end)` that `regions` cover.
    static func covered(_ start: Double, _ end: Double, by regions: [SpeechRegion]) -> Double {
        regions.reduce(0) { $0 + max(0, min(end, $1.end) - max(start, $1.start)) }
    }
}
