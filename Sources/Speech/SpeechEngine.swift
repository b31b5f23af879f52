import CapforgeCore

/// A recogniser of one tier. What varies by machine (installed models, library presence)
/// is given to the engine when it is made, so tests can build any world they need.
///
/// Contract: `transcribe` throws when recognition *failed*; an empty result means *no speech*.
public protocol SpeechEngine: AnyObject, Sendable {
    var identity: EngineIdentity { get }
    /// Languages this engine can recognise with what is installed here: an engine lists what it
    /// really supports, never "any".
    var supportedLanguages: Set<Language> { get }
    /// Recognise `audio` (16 kHz mono, on the file's timeline) in `language`.
    /// Word times are on the file's timeline too. Stops with `Cancelled` or
    /// `.timedOut` when `cancellation` fires.
    func transcribe(_ audio: MonoAudio, language: Language, cancellation: Cancellation) throws -> [Word]
    /// What the engine heard of a window whose audio from `nextWindowFrom` on a next window
    /// hears too (nil: no next window does), and what it cut of its own loops. An engine that
    /// hears a fixed span at a time (Whisper: one 30 s encoder pass) finishes only the sentences
    /// that end inside it; rather than pay a whole pass for a sentence left over past
    /// `nextWindowFrom`, it stops and says where. Others hear it all.
    func transcribeWindow(_ audio: MonoAudio, language: Language, nextWindowFrom: Double?, cancellation: Cancellation) throws -> HeardWindow
    /// What the engine does besides transcribing, declared: callers choose by it, never by the
    /// count of its languages or by casting.
    var capabilities: EngineCapabilities { get }
    /// With `.detectsLanguage`: the most likely spoken language of the first 30 s of `audio`
    /// (nil when it cannot tell).
    func detectLanguage(_ audio: MonoAudio) throws -> LanguageGuess?
    /// With `.translates`: English words for speech in `language`, timed on the file's
    /// timeline, with what the engine cut or dropped on the way.
    func translate(_ audio: MonoAudio, from language: Language, cancellation: Cancellation) throws -> HeardWindow
    /// How many windows the engine hears best at the same time, each on a thread of its own
    /// (1: one at a time; calls from several threads then wait for each other).
    var windowsAtOnce: Int { get }
    /// Called on a thread that hears windows alongside others, `windows` in all, before it hears
    /// any: the engine sizes that thread's work to its share of the cores.
    func shareCores(among windows: Int)
}

/// What an engine can do besides transcribing.
public struct EngineCapabilities: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Tells which language is spoken (a multilingual Whisper model).
    public static let detectsLanguage = EngineCapabilities(rawValue: 1 << 0)
    /// Writes speech in another language as English (a multilingual Whisper model).
    public static let translates = EngineCapabilities(rawValue: 1 << 1)
}

extension SpeechEngine {
    public var capabilities: EngineCapabilities { [] }

    public var windowsAtOnce: Int { 1 }

    public func shareCores(among windows: Int) {}

    public func detectLanguage(_ audio: MonoAudio) throws -> LanguageGuess? { nil }

    public func translate(_ audio: MonoAudio, from language: Language, cancellation: Cancellation) throws -> HeardWindow {
        throw SpeechError.engineFailed(engine: identity.engine, reason: "\(identity.model) cannot translate")
    }

    public func transcribeWindow(_ audio: MonoAudio, language: Language, nextWindowFrom: Double?, cancellation: Cancellation) throws -> HeardWindow {
        HeardWindow(words: try transcribe(audio, language: language, cancellation: cancellation), heardUntil: audio.endTime)
    }
}

/// What an engine heard of a window, and up to where.
public struct HeardWindow: Sendable, Equatable {
    public var words: [Word]
    /// Where the engine stopped listening: the window's end, or earlier where speech ran on past
    /// the last sentence it finished and was left to the next window.
    public var heardUntil: Double
    /// Where the engine looped and cut the copies the audio did not back.
    public var loopCuts: [LoopCut]
    /// Words the engine itself left out, and why.
    public var droppedWords: [DroppedWord]
    /// How its 30 s windows were decoded when beam search was asked for; nil otherwise.
    public var beam: BeamTally?

    public init(words: [Word], heardUntil: Double, loopCuts: [LoopCut] = [], droppedWords: [DroppedWord] = [], beam: BeamTally? = nil) {
        self.words = words
        self.heardUntil = heardUntil
        self.loopCuts = loopCuts
        self.droppedWords = droppedWords
        self.beam = beam
    }

    /// Takes in what a further call heard of the rest of the window: its words, loop cuts and drops.
    mutating func add(_ rest: HeardWindow) {
        words += rest.words
        loopCuts += rest.loopCuts
        droppedWords += rest.droppedWords
        beam = BeamTally.sum([beam, rest.beam])
    }
}

public enum SpeechError: Error, CustomStringConvertible, Equatable {
    case timedOut(seconds: Double)
    case libraryMissing(name: String, hint: String)
    case modelMissing(path: String, hint: String)
    case modelInvalid(path: String, reason: String)
    case unsupportedLanguage(language: Language, engine: String, available: [Language])
    case engineFailed(engine: String, reason: String)

    public var description: String {
        switch self {
        case .timedOut(let s): return "recognition did not finish within its \(String(format: "%.0f", s)) s deadline"
        case .libraryMissing(let name, let hint): return "the \(name) library is not available: \(hint)"
        case .modelMissing(let path, let hint): return "model not found at \(path): \(hint)"
        case .modelInvalid(let path, let reason): return "model at \(path) is not usable: \(reason)"
        case .unsupportedLanguage(let lang, let engine, let available):
            return "\(engine) cannot recognise '\(lang)'; installed languages: \(available.sorted().map(\.code).joined(separator: ", "))"
        case .engineFailed(let engine, let reason): return "\(engine) failed: \(reason)"
        }
    }
}
