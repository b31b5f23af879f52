import CapforgeCore
import Foundation
import Synchronization

/// An engine whose languages are known from its files, loaded on first use: a run may have
/// several models installed and need only one of them.
public final class LazyEngine: SpeechEngine, Sendable {
    public let identity: EngineIdentity
    public let supportedLanguages: Set<Language>
    public let capabilities: EngineCapabilities
    private let load: @Sendable () throws -> any SpeechEngine
    private let loaded = Mutex<Result<any SpeechEngine, Error>?>(nil)

    public init(identity: EngineIdentity, supportedLanguages: Set<Language>, capabilities: EngineCapabilities = [],
                load: @escaping @Sendable () throws -> any SpeechEngine) {
        self.identity = identity
        self.supportedLanguages = supportedLanguages
        self.capabilities = capabilities
        self.load = load
    }

    /// The engine, loading it once; a load failure is remembered and thrown to every caller.
    public func engine() throws -> any SpeechEngine {
        try loaded.withLock { loaded in
            let result = loaded ?? Result { try load() }
            loaded = result
            return try result.get()
        }
    }

    public func transcribe(_ audio: MonoAudio, language: Language, cancellation: Cancellation) throws -> [Word] {
        try engine().transcribe(audio, language: language, cancellation: cancellation)
    }

    public func transcribeWindow(_ audio: MonoAudio, language: Language, nextWindowFrom: Double?, cancellation: Cancellation) throws -> HeardWindow {
        try engine().transcribeWindow(audio, language: language, nextWindowFrom: nextWindowFrom, cancellation: cancellation)
    }

    public func detectLanguage(_ audio: MonoAudio) throws -> LanguageGuess? {
        try engine().detectLanguage(audio)
    }

    public func translate(_ audio: MonoAudio, from language: Language, cancellation: Cancellation) throws -> HeardWindow {
        try engine().translate(audio, from: language, cancellation: cancellation)
    }

    /// Asked right before the engine hears its first window, so loading it here costs nothing
    /// extra; one that does not load hears one window at a time, and fails there as it would.
    public var windowsAtOnce: Int { (try? engine())?.windowsAtOnce ?? 1 }

    public func shareCores(among windows: Int) {
        try? engine().shareCores(among: windows)
    }
}

/// The engines installed on this machine, found by probing files: Whisper models in the models
/// directory (or one given model), Vosk models and the Silero VAD model there too, and
/// Debian's PocketSphinx model.
public enum InstalledEngines {
    /// `named`: the models the run names. The cross-checking model transcribes only a language
    /// no other model covers, so naming an installed model makes it the checker of the others
    /// rather than their rival.
    public static func discover(store: ModelStore, named: ModelChoices = ModelChoices(), whisperOptions: WhisperOptions) throws -> TierEngines {
        var basic: [any SpeechEngine] = []
        let pocketSphinx = PocketSphinxEngine()
        if !pocketSphinx.supportedLanguages.isEmpty { basic.append(pocketSphinx) }
        var ignored: [String] = []
        let vosk = VoskEngine(models: store.searchPath.flatMap { VoskModelCatalog.discover(in: $0) })
        if !vosk.supportedLanguages.isEmpty {
            if let missing = VoskLibrary.problem {
                let languages = vosk.supportedLanguages.sorted().map(\.name).joined(separator: ", ")
                ignored.append("\(missing) (the installed Vosk models for \(languages) are not used)")
            } else {
                basic.append(vosk)
            }
        }
        if let missing = WhisperLibrary.problem {
            // Asked for by name, Whisper is a contract; otherwise the basic tier carries on, said.
            guard named.transcribing == nil, named.crossChecking == nil else { throw missing }
            let sileroOff = store.file(named: SileroVAD.modelFileName) == nil ? []
                : ["the Silero speech detector runs on libwhisper, so the energy detector chooses what is recognised"]
            return TierEngines(modern: [], basic: basic, speechDetector: ChunkPlanner.defaultVAD, ignoredModels: ignored + ["\(missing)"] + sileroOff,
                               modernLibraryAvailable: false, soundEvents: SoundEventDetector.installed(in: store))
        }
        var whisperModels: [InstalledModel]
        // Digests only where they become engine identities; a named model is digested on its own.
        let installed = try store.list(digests: named.transcribing == nil).filter { $0.engine == WhisperEngine.engineName }
        if let name = named.transcribing {
            whisperModels = [try model(named: name, as: .transcribing, installed: installed, store: store)]
        } else {
            ignored += installed.compactMap { model in model.problem.map { "ignoring the Whisper model \(model.url.path): \($0)" } }
            whisperModels = byPreference(installed)
        }
        let checkModel = try named.crossChecking.map { try model(named: $0, as: .crossChecking, installed: installed, store: store) }
        if let checkModel {
            func isChecker(_ model: InstalledModel) -> Bool {
                model.url.standardizedFileURL == checkModel.url.standardizedFileURL || (model.sha256 != nil && model.sha256 == checkModel.sha256)
            }
            if let name = named.crossChecking, named.transcribing != nil, whisperModels.contains(where: isChecker) {
                throw ModelChoiceError(role: .crossChecking, name: name, problem: .transcribesAlready)
            }
            whisperModels.removeAll(where: isChecker)
            whisperModels.append(checkModel)
        }
        let modern = whisperModels.map { model in
            var options = whisperOptions
            options.network = whisperOptions.network.running(weightType: model.weightType)
            if options.network != whisperOptions.network {
                ignored.append("the Whisper model \(model.name) is stored as \(model.weightType ?? "an unknown type"), which Capforge's own runtime does not read "
                    + "(it reads \(WhisperNetworkChoice.runtimeWeightTypes.sorted().joined(separator: ", "))): it runs on libwhisper")
            }
            return whisperEngine(model, options: options)
        }
        return TierEngines(modern: modern, basic: basic, speechDetector: try speechDetector(store: store), ignoredModels: ignored,
                           crossChecker: checkModel == nil ? nil : modern.last, soundEvents: SoundEventDetector.installed(in: store))
    }

    /// The usable models, the one each language goes to first: a broken model counts as absent,
    /// and bigger models are more accurate.
    public static func byPreference(_ models: [InstalledModel]) -> [InstalledModel] {
        models.filter { $0.problem == nil }.sorted { $0.sizeBytes > $1.sizeBytes }
    }

    /// The languages each usable model transcribes when no `--model` is given, by model file.
    public static func chosenLanguages(_ models: [InstalledModel]) -> [URL: [Language]] {
        var taken = Set<Language>()
        var chosen: [URL: [Language]] = [:]
        for model in byPreference(models) {
            chosen[model.url] = model.languages.filter { taken.insert($0).inserted }
        }
        return chosen
    }

    private static func whisperEngine(_ model: InstalledModel, options: WhisperOptions) -> LazyEngine {
        LazyEngine(
            identity: EngineIdentity(engine: WhisperEngine.engineName, tier: .modern, model: model.name, modelSHA256: model.sha256,
                                     runtime: options.network == .capforge ? WhisperNetworkChoice.capforge.rawValue : nil),
            supportedLanguages: Set(model.languages),
            capabilities: model.isEnglishOnly ? [] : WhisperEngine.multilingualCapabilities
        ) {
            switch options.network {
            case .libwhisper: return try WhisperEngine(modelPath: model.url.path, options: options, modelSHA256: model.sha256)
            case .capforge: return try WhisperEngine(runtimeModel: model.url, options: options, modelSHA256: model.sha256)
            }
        }
    }

    /// An installed model by name, else a model file; a broken one is an error, not ignored.
    private static func model(named name: String, as role: ModelChoices.Role, installed: [InstalledModel], store: ModelStore) throws -> InstalledModel {
        let url: URL
        if let named = installed.first(where: { $0.name == name }) {
            url = named.url
        } else if FileManager.default.fileExists(atPath: name) {
            url = URL(fileURLWithPath: name)
        } else {
            let choices = installed.isEmpty ? "none in \(store.searchPath.map(\.path).joined(separator: ", "))" : installed.map(\.name).sorted().joined(separator: ", ")
            throw ModelChoiceError(role: role, name: name, problem: .notFound(choices: choices))
        }
        let model = try store.describe(modelAt: url)
        if let problem = model.problem { throw SpeechError.modelInvalid(path: model.url.path, reason: problem) }
        return model
    }

    /// Silero when its model is in the models directory (it tells speech from music), else the
    /// energy VAD. A Silero model that is there but unusable is an error, not a silent fallback.
    public static func speechDetector(store: ModelStore) throws -> any SpeechDetector {
        guard let silero = store.file(named: SileroVAD.modelFileName) else { return ChunkPlanner.defaultVAD }
        return try SileroVAD(modelPath: silero.path)
    }
}

/// The Whisper models a run names, each an installed model's name (as `models list` shows it)
/// or a model file: the one that transcribes, and one that cross-checks the others.
public struct ModelChoices: Sendable, Equatable {
    public enum Role: Sendable, Equatable { case transcribing, crossChecking }

    public var transcribing: String?
    public var crossChecking: String?

    public init(transcribing: String? = nil, crossChecking: String? = nil) {
        self.transcribing = transcribing
        self.crossChecking = crossChecking
    }
}

/// A model a run named that cannot take its part, and which choice named it.
public struct ModelChoiceError: Error, Equatable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        /// Neither an installed model's name (`choices`: "base, tiny.en", or the folders where
        /// none is) nor a model file.
        case notFound(choices: String)
        /// The cross-checking model is the one that transcribes.
        case transcribesAlready
    }

    public var role: ModelChoices.Role
    public var name: String
    public var problem: Problem

    public var description: String {
        switch problem {
        case .notFound(let choices):
            return "model not found at \(name): not an installed Whisper model's name (\(choices)) nor a ggml model file"
        case .transcribesAlready:
            return "\(name) is the model that transcribes; cross-check with another model"
        }
    }
}
