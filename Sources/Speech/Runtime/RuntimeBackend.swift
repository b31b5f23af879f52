import CapforgeCore
import Foundation
import WhisperRuntime

/// Capforge's own runtime behind `WhisperEngine` in place of libwhisper. Each call keeps its
/// state to itself: calls from several threads run side by side.
final class RuntimeBackend: WhisperBackend {
    let model: RuntimeWhisperModel
    private let threads: Int

    init(model: RuntimeWhisperModel, threads: Int) {
        self.model = model
        self.threads = threads
        WhisperNetwork.threads = threads
    }

    var isMultilingual: Bool { model.vocabulary.isMultilingual }
    var endOfText: Int32 { model.vocabulary.endOfText }

    /// Two windows at once, one core each, where there are two cores or more: a decoder step
    /// is too small for a second core (4.3 ms a token with two threads, 4.6 with one), so two
    /// windows side by side do nearly twice the work of one window on both.
    var windowsAtOnce: Int { min(2, threads) }

    /// oneDNN's thread count is the calling thread's own (OpenMP's), so each window's thread gets its share.
    func shareCores(among windows: Int) {
        WhisperNetwork.threads = max(1, threads / max(1, windows))
    }

    /// The runtime has no text prompt (the engine's initializer refused one), nor a beam.
    func decode(_ samples: [Float], language: Language?, task: WhisperTask, prompt: String?, redecoding: Bool, passesBefore: Int64?,
                cancellation: Cancellation) throws -> WhisperDecoding {
        var decodedIn: Language? = nil
        if isMultilingual {
            if let language {
                decodedIn = language
            } else {
                let probabilities = try languageProbabilities(samples)
                let id = Int32(probabilities.indices.max { probabilities[$0] < probabilities[$1] } ?? 0)
                decodedIn = model.vocabulary.languageCode(ofID: id).flatMap(Language.init)
            }
        }
        let request = RuntimeTranscriber.Request(language: decodedIn?.code, translating: task == .translate, redecoding: redecoding,
                                                 passesBefore: passesBefore)
        return try runtimeErrorsNamed {
            let run = try RuntimeTranscriber(model: model).run(samples, request, cancellation: cancellation)
            return WhisperDecoding(segments: run.segments, stoppedEarly: run.stoppedEarly, beam: nil, language: decodedIn)
        }
    }

    func detectLanguage(_ samples: [Float]) throws -> LanguageGuess {
        try LanguageGuess.likeliest(of: try languageProbabilities(samples)) { model.vocabulary.languageCode(ofID: $0).flatMap(Language.init) }
    }

    /// The probability of each language (the vocabulary's language order) in the first 30 s of
    /// `samples`: the decoder's scores for the language tokens after the start of transcript, as libwhisper.
    private func languageProbabilities(_ samples: [Float]) throws -> [Float] {
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
