import CapforgeCore

/// The engines loaded for a run, by tier, and the detector that decides which audio they get.
/// Each is loaded once per run, not per file.
public struct TierEngines: Sendable {
    public var modern: [any SpeechEngine]
    public var basic: [any SpeechEngine]
    public var speechDetector: any SpeechDetector
    /// What the run does with the installed models that the user did not ask for, each a
    /// sentence: broken models left out, a model the runtime cannot read run on libwhisper.
    public var ignoredModels: [String]
    /// `--cross-check`: the second modern engine that hears every modern chunk again.
    public var crossChecker: (any SpeechEngine)?
    /// False when libwhisper cannot be opened here: the modern tier is off whatever is installed.
    public var modernLibraryAvailable: Bool
    /// The music check: the sound-event detector when its model is installed, else why not.
    public var soundEvents: SoundEventCheck

    public init(modern: [any SpeechEngine], basic: [any SpeechEngine], speechDetector: any SpeechDetector = ChunkPlanner.defaultVAD,
                ignoredModels: [String] = [], crossChecker: (any SpeechEngine)? = nil, modernLibraryAvailable: Bool = true,
                soundEvents: SoundEventCheck = .off(reason: "no sound-event detector was given")) {
        self.modernLibraryAvailable = modernLibraryAvailable
        self.soundEvents = soundEvents
        self.modern = modern
        self.basic = basic
        self.speechDetector = speechDetector
        self.ignoredModels = ignoredModels
        self.crossChecker = crossChecker
    }

    /// The engine that detects a file's spoken language: the first modern one that declares it.
    public var languageDetector: (any SpeechEngine)? {
        modern.first { $0.capabilities.contains(.detectsLanguage) }
    }

    /// The first engine of `tier` that supports `language`.
    public func engine(_ tier: Tier, for language: Language) -> (any SpeechEngine)? {
        (tier == .modern ? modern : basic).first { $0.supportedLanguages.contains(language) }
    }

    /// The cross-checker for words of `primary` in `language`; nil when there is none, it lacks
    /// the language, `primary` is not a modern engine (it checks Whisper's words, which carry the
    /// evidence its verdict joins), or it is `primary` itself (a model cannot dispute itself).
    public func crossChecker(for language: Language, of primary: EngineIdentity) -> (any SpeechEngine)? {
        guard primary.tier == .modern, let crossChecker, crossChecker.supportedLanguages.contains(language), crossChecker.identity != primary else { return nil }
        return crossChecker
    }

    /// What these engines cover, for the tier resolver.
    public func inventory() -> TierInventory {
        TierInventory(
            modernLanguages: Set(modern.flatMap(\.supportedLanguages)),
            basicLanguages: Set(basic.flatMap(\.supportedLanguages)),
            modernLibraryAvailable: modernLibraryAvailable,
            installedModels: (modern + basic).map { "\($0.identity.model) (\($0.identity.engine))" })
    }
}
