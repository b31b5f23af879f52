import CapforgeCore
import Foundation
import WhisperRuntime

/// What `WhisperEngine` asks of Capforge's own runtime in place of libwhisper: decoding a chunk
/// window after window, and the language of its first 30 s. Each call keeps its state to
/// itself: calls from several threads run side by side.
final class RuntimeBackend: Sendable {
    let model: RuntimeWhisperModel

    init(model: RuntimeWhisperModel) {
        self.model = model
    }

    var isMultilingual: Bool { model.vocabulary.isMultilingual }
    var endOfText: Int32 { model.vocabulary.endOfText }

    /// `language` is an ISO code or "auto" (a multilingual model detects it from the first 30 s).
    /// `languageID`: the language decoded in (libwhisper's numbering; 0 for an English-only model).
    func decode(_ samples: [Float], language: String, translating: Bool, redecoding: Bool, passesBefore: Int64?,
                cancellation: Cancellation) throws -> (segments: [DecodedSegment], stoppedEarly: Bool, languageID: Int32) {
        var code: String? = nil
        var languageID: Int32 = 0
        if isMultilingual {
            if language == "auto" {
                let probabilities = try languageProbabilities(samples)
                languageID = Int32(probabilities.indices.max { probabilities[$0] < probabilities[$1] } ?? 0)
                code = model.vocabulary.languageCode(ofID: languageID)
            } else {
                code = language
                languageID = model.vocabulary.languageID(of: language) ?? 0
            }
        }
        let request = RuntimeTranscriber.Request(language: code, translating: translating, redecoding: redecoding, passesBefore: passesBefore)
        return try runtimeErrorsNamed {
            let run = try RuntimeTranscriber(model: model).run(samples, request, cancellation: cancellation)
            return (run.segments, run.stoppedEarly, languageID)
        }
    }

    /// The probability of each language (libwhisper's ids) in the first 30 s of `samples`: the
    /// decoder's scores for the language tokens after the start of transcript, as libwhisper.
    func languageProbabilities(_ samples: [Float]) throws -> [Float] {
        try runtimeErrorsNamed {
            let mel = try LogMelSpectrogram(samples: samples, melCount: model.network.dimensions.melCount)
            var decoding = try model.network.decoding(try model.network.encode(mel.window(at: 0)))
            let logits = try decoding.logits(after: [model.vocabulary.startOfTranscript], past: 0)
            let ids = model.vocabulary.languageTokens
            return RuntimeTranscriber.softmax(ids.map { logits[Int($0)] })
        }
    }

    /// The runtime's errors (a oneDNN call refused) as the engine's.
    private func runtimeErrorsNamed<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as RuntimeError {
            throw SpeechError.engineFailed(engine: WhisperEngine.engineName, reason: error.description)
        }
    }
}
