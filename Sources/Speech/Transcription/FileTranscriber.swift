import CapforgeCore
import Foundation

/// How a file's spoken language came to be known.
public enum LanguageSource: String, Sendable, Codable {
    case requested, streamTag = "stream-tag", detected, fallback
}

/// What a file's transcription is asked for.
public struct TranscriptionRequest: Sendable, Equatable {
    /// The language known before listening (`--lang`, or the audio stream's tag); nil leaves it
    /// to detection.
    public var language: Language?
    /// How `language` is known: `.requested` or `.streamTag`.
    public var languageSource: LanguageSource
    public var tier: TierPreference
    /// English captions for speech in another language (Whisper's translation)...
    public var translate: Bool
    /// ...and the spoken language's captions besides.
    public var alsoOriginal: Bool

    public init(language: Language?, languageSource: LanguageSource, tier: TierPreference = .auto, translate: Bool = false, alsoOriginal: Bool = false) {
        self.language = language
        self.languageSource = languageSource
        self.tier = tier
        self.translate = translate
        self.alsoOriginal = alsoOriginal
    }
}

/// One transcript a file gets: what was said, or Whisper's English for it.
public struct TranscriptionPass: Sendable {
    public let plan: TierPlan
    public let isTranslation: Bool
    let transcriber: ChunkedTranscriber
    /// The engines the pass hears with (the translating ones for a translation).
    public var engines: TierEngines { transcriber.engines }
    /// The language of the transcript's text.
    public var captionLanguage: Language { isTranslation ? .english : plan.language }
    /// Each pass journals apart, so that resuming one never replays the other's chunks.
    var journalSuffix: String { isTranslation ? "-translation" : "" }
}

/// What is decided about a file before its chunks are heard: where the speech is, its language
/// and tier, and the passes it gets.
public struct PlannedTranscription: Sendable {
    /// The speech detector's regions: one pass of it serves the language vote, chunk planning
    /// and the check of the words against it.
    public let speech: [SpeechRegion]
    /// What the music check found; nil when it is off. Its music alone is silence to every pass.
    public let sounds: SoundScene?
    public let plan: TierPlan
    public let languageSource: LanguageSource
    /// The translation first when there is one (the captions a viewer reads first); or why the
    /// translation that alone was asked for cannot be made.
    public let passes: Result<[TranscriptionPass], FileTranscriptionError>
    /// What was assumed or left out that the request did not say.
    public let notes: [TranscriptionNote]
}

/// Where a file's journals are kept, and the key (settings and file identity) that an
/// interrupted run's entries must carry to be resumed.
public struct JournalPlace: Sendable {
    public let folder: StateFolder
    /// The file's journals are named from this (a pass adds its suffix).
    public let name: String
    public let key: String

    public init(folder: StateFolder, name: String, key: String) {
        self.folder = folder
        self.name = name
        self.key = key
    }
}

/// A pass heard, what it did that was not asked for, and its journal, to discard once what it
/// produced is written.
public struct HeardPass {
    public let transcript: Transcript
    /// Of a file's two passes, the translation's notes say so (`.ofTranslation`).
    public let notes: [TranscriptionNote]
    /// The moments the notes are about, for the review page's timeline.
    public let marks: [TimelineMark]
    let journal: TranscriptionJournal?

    public func discardJournal() { journal?.discard() }
}

public enum FileTranscriptionError: Error, CustomStringConvertible, Equatable {
    case recognitionFailed(reason: String)
    case cannotTranslate(reason: String)

    public var description: String {
        switch self {
        case .recognitionFailed(let reason): return "no speech could be recognised by any tier: \(reason)"
        case .cannotTranslate(let reason): return reason + " (or add --also-original to write the spoken language's captions alone)"
        }
    }
}

/// Transcribes a file: speech detection, the spoken language (voted over windows of speech),
/// the tier, the passes (a translation, the original), each heard chunk by chunk and journaled.
public final class FileTranscriber: Sendable {
    public let engines: TierEngines
    public let resolver: TierResolver
    let transcriber: ChunkedTranscriber
    /// The multilingual Whisper models writing English, when translations are wanted.
    let translator: ChunkedTranscriber?

    public init(engines: TierEngines, calibration: CalibrationTable, options: TranscriptionOptions, translates: Bool) {
        self.engines = engines
        resolver = TierResolver(inventory: engines.inventory())
        transcriber = ChunkedTranscriber(engines: engines, calibration: calibration, options: options)
        translator = translates ? ChunkedTranscriber(engines: engines.translating(), calibration: calibration, options: options) : nil
    }

    /// The engines that translate, when translations are wanted.
    public var translators: TierEngines? { translator?.engines }

    /// Where speech is, for timing (`SpeechDetector.forTiming`), not for hearing.
    public func speechForTiming(_ audio: any AudioSource) throws -> [SpeechRegion] {
        try transcriber.planner.detector.forTiming().speechRegions(across: audio)
    }

    /// Finds the speech, decides the language (as requested, else voted) and tier, and the passes.
    /// Throws when no tier supports the language.
    public func plan(_ audio: any AudioSource, request: TranscriptionRequest) throws -> PlannedTranscription {
        let sounds = try engines.soundEvents.detector?.scene(of: audio)
        let heard = sounds?.heard(audio) ?? audio
        let speech = try speechRegions(audio, heard: sounds?.musicAlone.isEmpty == false ? heard : nil)
        let (language, source) = try request.language.map { ($0, request.languageSource) } ?? detectedLanguage(audio: heard, speech: speech)
        let plan = try resolver.resolve(language, preference: request.tier)
        var notes: [TranscriptionNote] = []
        // A file without speech has no language to be wrong about.
        if source == .fallback, !speech.isEmpty {
            notes.append(.languageAssumed(detectorInstalled: engines.languageDetector != nil))
        }
        let passes = Result { () throws(FileTranscriptionError) in
            try self.passes(plan, request: request, speechFound: !speech.isEmpty, languageSource: source, notes: &notes)
        }
        return PlannedTranscription(speech: speech, sounds: sounds, plan: plan, languageSource: source, passes: passes, notes: notes)
    }

    /// One pass heard, resumed from `journal`'s entries when an interrupted run left some. Speech
    /// that no engine could recognise throws: empty captions must not pass as done (a rerun would
    /// then skip the file as current).
    public func transcribe(
        _ audio: any AudioSource, pass: TranscriptionPass, of planned: PlannedTranscription, journal place: JournalPlace?,
        cancellation: Cancellation, progress: (ChunkProgress) -> Void
    ) throws -> HeardPass {
        let journal = try place.map { place in
            try TranscriptionJournal(folder: place.folder, name: "\(place.name)\(pass.journalSuffix).jsonl",
                                     key: "\(place.key)-\(planned.plan.language)-\(pass.plan.mode.rawValue)\(pass.journalSuffix)")
        }
        var transcript = try pass.transcriber.transcribe(planned.sounds?.heard(audio) ?? audio, plan: pass.plan, speech: planned.speech,
                                                         sounds: planned.sounds, journal: journal,
                                                         cancellation: cancellation, progress: progress)
        transcript.sounds = planned.sounds
        if transcript.chunks.contains(where: { $0.outcome == .failed }), !transcript.chunks.contains(where: { $0.outcome == .recognised }) {
            let reason = transcript.chunks.first { $0.outcome == .failed }?.error ?? "no engine could recognise it"
            throw FileTranscriptionError.recognitionFailed(reason: reason)
        }
        if pass.isTranslation {
            transcript.translatedFrom = transcript.language
            transcript.language = .english
        }
        let notes = TranscriptionNote.notes(of: transcript, plan: pass.plan, engines: pass.engines, calibration: pass.transcriber.calibration)
        let both = ((try? planned.passes.get())?.count ?? 1) > 1
        return HeardPass(transcript: transcript, notes: pass.isTranslation && both ? notes.map { .ofTranslation(note: $0) } : notes,
                         marks: TranscriptionNote.marks(of: transcript, plan: pass.plan), journal: journal)
    }

    /// The passes for a file of `plan`: the translation first when one is asked for and can be
    /// made, the spoken language's when asked for or when there is nothing to translate.
    /// `speechFound` and `languageSource` say why English is the plan's language: heard, or
    /// assumed for want of speech or of certainty.
    private func passes(
        _ plan: TierPlan, request: TranscriptionRequest, speechFound: Bool, languageSource: LanguageSource, notes: inout [TranscriptionNote]
    ) throws(FileTranscriptionError) -> [TranscriptionPass] {
        let original = TranscriptionPass(plan: plan, isTranslation: false, transcriber: transcriber)
        guard request.translate, let translator else { return [original] }
        guard plan.language != .english else {
            notes.append(.nothingToTranslate(why: !speechFound ? .noSpeech : languageSource == .fallback ? .languageUnknown : .english(source: languageSource)))
            return [original]
        }
        guard translator.engines.engine(.modern, for: plan.language) != nil else {
            let basic = plan.mode == .basic
            guard request.alsoOriginal else {
                throw FileTranscriptionError.cannotTranslate(reason: TranscriptionNote.untranslatable(plan.language, recognisedByBasicTier: basic))
            }
            notes.append(.cannotTranslate(language: plan.language, recognisedByBasicTier: basic))
            return [original]
        }
        // The basic tier would write the spoken language into an English file: never a stand-in here.
        let translation = TranscriptionPass(plan: TierPlan(language: plan.language, mode: .modern, basicFallback: false),
                                            isTranslation: true, transcriber: translator)
        return request.alsoOriginal ? [translation, original] : [translation]
    }

    /// The speech regions of `heard` (`audio` with its music alone made silent; nil when none is) that meet speech
    /// the detector finds in `audio`: the music check takes speech away, never adds a stretch.
    /// The silence it leaves makes the music after it start as speech does, and Silero then called
    /// chords it had heard as no speech (Fixtures/silence-music.mkv) speech. A region is kept
    /// whole, with its own edges: under a music bed Silero starts a voice late (0.8 s on held-out
    /// speech), where the audio heard has the voice start clear.
    private func speechRegions(_ audio: any AudioSource, heard: (any AudioSource)?) throws -> [SpeechRegion] {
        let detector = transcriber.planner.detector
        let regions = try detector.speechRegions(across: audio)
        return try heard.map { try detector.speechRegions(across: $0).overlapping(regions) } ?? regions
    }

    /// Whisper's vote over three windows of speech, else English.
    private func detectedLanguage(audio: any AudioSource, speech: [SpeechRegion]) throws -> (Language, LanguageSource) {
        if let detector = engines.languageDetector {
            let windows = try LanguageVote.windows(of: audio, regions: speech)
            let guesses = try windows.compactMap { try detector.detectLanguage($0) }
            if let winner = LanguageVote.winner(guesses), (try? resolver.resolve(winner.language)) != nil {
                return (winner.language, .detected)
            }
        }
        return (.english, .fallback)
    }
}
