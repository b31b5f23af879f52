import CapforgeCore
import Foundation

/// Something that can tell which language is spoken (a multilingual Whisper model).
public protocol LanguageDetector: AnyObject, Sendable {
    func detectLanguage(_ audio: MonoAudio) throws -> LanguageGuess?
}

extension WhisperEngine: LanguageDetector {}

/// An engine whose languages are known from its files, loaded on first use: a run may have
/// several models installed and need only one of them.
public final class LazyEngine: SpeechEngine, LanguageDetector, @unchecked Sendable {
    public let identity: EngineIdentity
    public let supportedLanguages: Set<String>
    private let load: @Sendable () throws -> any SpeechEngine
    private let lock = NSLock()
    private var loaded: Result<any SpeechEngine, Error>?

    public init(identity: EngineIdentity, supportedLanguages: Set<String>, load: @escaping @Sendable () throws -> any SpeechEngine) {
        self.identity = identity
        self.supportedLanguages = supportedLanguages
        self.load = load
    }

    /// The engine, loading it once; a load failure is remembered and thrown to every caller.
    public func engine() throws -> any SpeechEngine {
        lock.lock()
        defer { lock.unlock() }
        if loaded == nil { loaded = Result { try load() } }
        return try loaded!.get()
    }

    public func transcribe(_ audio: MonoAudio, language: String, cancellation: Cancellation) throws -> [Word] {
        try engine().transcribe(audio, language: language, cancellation: cancellation)
    }

    public func detectLanguage(_ audio: MonoAudio) throws -> LanguageGuess? {
        try (engine() as? LanguageDetector)?.detectLanguage(audio)
    }
}

/// The engines installed on this machine, found by probing files: Whisper models in the models
/// directory (or one given model), Vosk models and the Silero VAD model there too, and
/// Debian's PocketSphinx model.
public enum InstalledEngines {
    public static func discover(store: ModelStore, whisperModel: URL? = nil, whisperOptions: WhisperOptions) throws -> TierEngines {
        let whisperModels: [InstalledModel]
        var ignored: [String] = []
        if let whisperModel {
            whisperModels = [try store.describe(modelAt: whisperModel)]
        } else {
            // A broken model counts as absent; bigger models are more accurate: try them first
            // for every language they cover.
            let installed = try store.list().filter { $0.engine == "whisper" }
            ignored = installed.compactMap { model in model.problem.map { "ignoring the Whisper model \(model.url.path): \($0)" } }
            whisperModels = installed.filter { $0.problem == nil }.sorted { $0.sizeBytes > $1.sizeBytes }
        }
        let modern: [any SpeechEngine] = whisperModels.map { model in
            LazyEngine(
                identity: EngineIdentity(engine: "whisper", tier: .modern, model: model.name, modelSHA256: model.sha256),
                supportedLanguages: Set(model.languages)
            ) { try WhisperEngine(modelPath: model.url.path, options: whisperOptions, modelSHA256: model.sha256) }
        }
        var basic: [any SpeechEngine] = []
        let pocketSphinx = PocketSphinxEngine()
        if !pocketSphinx.supportedLanguages.isEmpty { basic.append(pocketSphinx) }
        let vosk = VoskEngine(modelsDirectory: store.directory)
        if !vosk.supportedLanguages.isEmpty { basic.append(vosk) }
        return TierEngines(modern: modern, basic: basic, speechDetector: try speechDetector(store: store), ignoredModels: ignored)
    }

    /// Silero when its model is in the models directory (it tells speech from music), else the
    /// energy VAD. A Silero model that is there but unusable is an error, not a silent fallback.
    public static func speechDetector(store: ModelStore) throws -> any SpeechDetector {
        let silero = store.directory.appendingPathComponent(SileroVAD.modelFileName)
        guard FileManager.default.fileExists(atPath: silero.path) else { return ChunkPlanner.defaultVAD }
        return try SileroVAD(modelPath: silero.path)
    }
}
