/// Identity of the engine and model that produced words, for reports and reproducibility.
public struct EngineIdentity: Codable, Sendable, Equatable, Hashable {
    public var engine: String
    public var tier: Tier
    public var model: String
    public var modelSHA256: String?
    /// Who ran the model when it is not the engine's usual library: "capforge" for Whisper on
    /// Capforge's own runtime (`--engine capforge`); absent otherwise.
    public var runtime: String?

    public init(engine: String, tier: Tier, model: String, modelSHA256: String? = nil, runtime: String? = nil) {
        self.engine = engine
        self.tier = tier
        self.model = model
        self.modelSHA256 = modelSHA256
        self.runtime = runtime
    }

    /// The model as the summary and report name it: "tiny.en", or "tiny.en on capforge".
    public var modelLabel: String { model + (runtime.map { " on \($0)" } ?? "") }
}

/// File-level quality flag: derived from the words that were actually produced.
public enum TranscriptTier: String, Codable, Sendable {
    case modern, basic, mixed, empty
}

/// A span of audio and what became of it when it was recognised.
public struct ChunkRecord: Codable, Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable {
        case recognised, silence, failed
    }
    public var start: Double
    public var end: Double
    public var outcome: Outcome
    public var tier: Tier?
    public var engine: String?
    public var error: String?
    /// Why the cross-checking model could not hear this chunk: its words keep the confidence of
    /// one model.
    public var crossCheckError: String?

    public init(start: Double, end: Double, outcome: Outcome, tier: Tier? = nil, engine: String? = nil, error: String? = nil,
                crossCheckError: String? = nil) {
        self.start = start
        self.end = end
        self.outcome = outcome
        self.tier = tier
        self.engine = engine
        self.error = error
        self.crossCheckError = crossCheckError
    }
}

/// The words of one audio stream plus where they came from.
public struct Transcript: Codable, Sendable, Equatable {
    public var language: Language
    public var words: [Word]
    public var engines: [EngineIdentity]
    public var chunks: [ChunkRecord]
    public var duration: Double
    /// The speech detector that chose which audio was recognised ("silero-v6.2.0", "energy");
    /// nil when the whole audio was recognised unchunked.
    public var speechDetector: String?
    /// Words an engine produced and the captions leave out, each with the check that dropped it.
    public var droppedWords: [DroppedWord]
    /// How many of `words` lie over no speech and were kept, marked low-confidence.
    public var wordsOverNoSpeech: Int
    /// Where the recogniser looped and the copies the audio did not back were cut.
    public var loopCuts: [LoopCut]
    /// The doubted stretches `--tier arbitrate` gave a second opinion, in time order.
    public var arbitrations: [ArbitrationVerdict]
    /// Seams between windows that disagreed and whose refereeing window failed ("at 192.3 s:
    /// why"): the overlap's middle joined them, so a word there may be lost or doubled.
    public var seamErrors: [String]
    /// The second model that heard the modern tier's chunks again (`--cross-check`); nil when
    /// none did.
    public var checkedBy: EngineIdentity?
    /// The spoken language when the words are an English translation of it; nil when they are
    /// what was said.
    public var translatedFrom: Language?
    /// How the modern tier's windows were decoded when beam search was asked for; nil otherwise.
    public var beam: BeamTally?
    /// When the words are a transcript the user gave, timed from the audio: how it matched
    /// what was heard; nil when the words are what the recogniser heard.
    public var alignment: TranscriptAlignment?
    /// What the sound-event detector found (its music alone was not heard); nil when the music
    /// check was off.
    public var sounds: SoundScene?

    public init(language: Language, words: [Word], engines: [EngineIdentity] = [], chunks: [ChunkRecord] = [], duration: Double,
                speechDetector: String? = nil, droppedWords: [DroppedWord] = [], wordsOverNoSpeech: Int = 0,
                arbitrations: [ArbitrationVerdict] = [], seamErrors: [String] = [], checkedBy: EngineIdentity? = nil, loopCuts: [LoopCut] = [],
                beam: BeamTally? = nil) {
        self.language = language
        self.words = words
        self.engines = engines
        self.chunks = chunks
        self.duration = duration
        self.speechDetector = speechDetector
        self.droppedWords = droppedWords
        self.wordsOverNoSpeech = wordsOverNoSpeech
        self.arbitrations = arbitrations
        self.seamErrors = seamErrors
        self.checkedBy = checkedBy
        self.loopCuts = loopCuts
        self.beam = beam
    }

    /// Seconds of speech (word time) per tier.
    public var speechSeconds: [Tier: Double] {
        words.reduce(into: [:]) { $0[$1.tier, default: 0] += max(0, $1.duration) }
    }

    /// Share of speech time recognised by the basic tier, 0...1.
    public var basicShare: Double {
        let seconds = speechSeconds
        let total = seconds.values.reduce(0, +)
        return total > 0 ? (seconds[.basic] ?? 0) / total : 0
    }

    public var tier: TranscriptTier {
        let tiers = Set(words.map(\.tier))
        switch (tiers.contains(.modern), tiers.contains(.basic)) {
        case (true, true): return .mixed
        case (true, false): return .modern
        case (false, true): return .basic
        case (false, false): return .empty
        }
    }
}
