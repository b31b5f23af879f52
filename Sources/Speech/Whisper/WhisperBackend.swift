import CapforgeCore

/// Who runs Whisper's network for `WhisperEngine`: libwhisper (`WhisperContext`) or Capforge's
/// own runtime (`RuntimeBackend`, issue 44). The engine's repairs (loops, steady sound,
/// prompted respelling) are the same over both.
protocol WhisperBackend: Sendable {
    var isMultilingual: Bool { get }
    var endOfText: Int32 { get }
    /// Windows the engine hears side by side (`SpeechEngine.windowsAtOnce`).
    var windowsAtOnce: Int { get }
    /// Gives each of `windows` threads decoding at once its share of the cores.
    func shareCores(among windows: Int)
    /// One decoding of `samples` in `language` (nil: a multilingual model detects it from the
    /// first 30 s). `prompt`: text shown before every window; `redecoding`: a loop decoded
    /// again, sampling from the start; `passesBefore` (centiseconds into `samples`): no
    /// encoder pass after the first starts at or after it.
    func decode(_ samples: [Float], language: Language?, task: WhisperTask, prompt: String?, redecoding: Bool, passesBefore: Int64?,
                cancellation: Cancellation) throws -> WhisperDecoding
    /// The most likely spoken language of the first 30 s of `samples` (a multilingual model's).
    func detectLanguage(_ samples: [Float]) throws -> LanguageGuess
}

/// What one decoding gave: its segments (centiseconds into the samples), whether an encoder
/// pass was refused (`passesBefore`), the beam's tally, and the language it was decoded in
/// (nil where the model cannot tell: English-only).
struct WhisperDecoding {
    var segments: [DecodedSegment]
    var stoppedEarly: Bool
    var beam: BeamTally?
    var language: Language?
}

extension LanguageGuess {
    /// The likeliest of `probabilities`, indexed by Whisper's language ids (`language(ofID:)`).
    static func likeliest(of probabilities: [Float], language: (Int32) -> Language?) throws -> LanguageGuess {
        guard let best = probabilities.indices.max(by: { probabilities[$0] < probabilities[$1] }), let found = language(Int32(best)) else {
            throw SpeechError.engineFailed(engine: WhisperEngine.engineName, reason: "language detection returned no language")
        }
        return LanguageGuess(language: found, probability: Double(probabilities[best]))
    }
}
