import Burn
import CapforgeCore
import Captions
import Foundation
import Media
import Speech

/// Everything that shapes a batch's outputs, with its defaults. Its `SettingsKey` (with the
/// engines' identities) is the manifest's: change any of it and the affected files are redone.
public struct BatchSettings: Sendable, Equatable {
    public var language = LanguageChoice.auto
    public var tier: TierPreference = .auto
    public var formats: [SubtitleFormat] = [.srt, .ass, .vtt, .json]
    /// The caption rules when `profileForEveryLanguage`; otherwise each file's caption language
    /// picks its own (`--profile auto`, `CaptionProfile.forLanguage`).
    public var profile: CaptionProfile = .netflixEnglish
    /// true when `--profile` named one profile for every file; false: by each file's language.
    public var profileForEveryLanguage = false
    public var style: String = StyleSheet.defaultName
    public var glossary = Glossary(terms: [])
    public var preciseTiming = false
    /// Whisper's beam width; 1 is greedy decoding.
    public var beamSize = 1
    /// `--engine`: who runs Whisper's network.
    public var whisperNetwork = WhisperNetworkChoice.libwhisper
    /// Burn-in settings when `--burn` was given.
    public var burn: BurnOptions?
    /// `--mux`: the captions as subtitle tracks in a copy of each video.
    public var mux = false
    /// `--translate`: English captions through Whisper's translate task; `alsoOriginal` writes
    /// the spoken language's captions too.
    public var translate = false
    public var alsoOriginal = false
    /// `--transcript FILE` or `--transcript-beside`: the captions hold the user's transcript,
    /// timed from what was heard; nil: what was heard.
    public var transcript: TranscriptChoice?
    /// `--karaoke`: each word lit as it is said, in the ASS (and so the burn-in) and the WebVTT.
    public var karaoke = false
    /// `--shot-changes`: cues timed to the video's shot changes (found as ffmpeg's scdet finds them).
    public var shotChanges = false
    /// `--sdh`: a label cue where music plays with no voice.
    public var sdh = false
    /// nil: the notice in the caption language (`QualityNotice`).
    public var noticeText: String?
    /// Words whose calibrated confidence is below this are marked low-confidence.
    public var lowConfidence = Confidence.defaultThreshold
    public var transcription = TranscriptionOptions()

    public init() {}

    /// The caption rules for captions in `language`.
    public func profile(for language: Language) -> CaptionProfile {
        profileForEveryLanguage ? profile : CaptionProfile.forLanguage(language)
    }

    /// The settings key for these settings with these engines, calibration and sound-event
    /// detector (nil: the music check is off).
    public func key(engines: [EngineIdentity], crossChecker: EngineIdentity? = nil, calibration: CalibrationTable, soundEvents: String? = nil) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return SHA256.hex(of: try encoder.encode(SettingsKey(settings: self, engines: engines, crossChecker: crossChecker, calibration: calibration,
                                                             soundEvents: soundEvents)))
    }
}

/// What decides a file's outputs, spelt out for the manifest's key. The settings of the first
/// key are always written; a setting added since is written only away from its default, so the
/// outputs made before it existed (which are what its default makes) stay current.
struct SettingsKey: Encodable {
    var settings: BatchSettings
    var engines: [EngineIdentity]
    var crossChecker: EngineIdentity?
    var calibration: CalibrationTable
    var soundEvents: String?

    private enum Keys: String, CodingKey { case settings, engines, crossChecker, calibration, soundEvents, version }
    private enum SettingKeys: String, CodingKey {
        case language, tier, formats, profile, style, glossary, preciseTiming, beamSize, burn, transcript, noticeText, lowConfidence, transcription
        case profileForEveryLanguage, whisperNetwork, mux, translate, alsoOriginal, karaoke, shotChanges, sdh
    }

    func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(1, forKey: .version)
        try container.encode(engines, forKey: .engines)
        try container.encodeIfPresent(crossChecker, forKey: .crossChecker)
        try container.encode(calibration, forKey: .calibration)
        try container.encodeIfPresent(soundEvents, forKey: .soundEvents)
        var keyed = container.nestedContainer(keyedBy: SettingKeys.self, forKey: .settings)
        try keyed.encode(settings.language, forKey: .language)
        try keyed.encode(settings.tier, forKey: .tier)
        try keyed.encode(settings.formats, forKey: .formats)
        try keyed.encode(settings.profile, forKey: .profile)
        try keyed.encode(settings.style, forKey: .style)
        try keyed.encode(settings.glossary, forKey: .glossary)
        try keyed.encode(settings.preciseTiming, forKey: .preciseTiming)
        try keyed.encode(settings.beamSize, forKey: .beamSize)
        try keyed.encodeIfPresent(settings.burn, forKey: .burn)
        try keyed.encodeIfPresent(settings.transcript, forKey: .transcript)
        try keyed.encodeIfPresent(settings.noticeText, forKey: .noticeText)
        try keyed.encode(settings.lowConfidence, forKey: .lowConfidence)
        try keyed.encode(settings.transcription, forKey: .transcription)
        let defaults = BatchSettings()
        func added<Value: Encodable & Equatable>(_ setting: KeyPath<BatchSettings, Value>, _ key: SettingKeys) throws {
            if settings[keyPath: setting] != defaults[keyPath: setting] { try keyed.encode(settings[keyPath: setting], forKey: key) }
        }
        try added(\.profileForEveryLanguage, .profileForEveryLanguage)
        try added(\.whisperNetwork, .whisperNetwork)
        try added(\.mux, .mux)
        try added(\.translate, .translate)
        try added(\.alsoOriginal, .alsoOriginal)
        try added(\.karaoke, .karaoke)
        try added(\.shotChanges, .shotChanges)
        try added(\.sdh, .sdh)
    }
}

/// How one input ended, for the summary, the report and the manifest.
public struct FileResult: Sendable, Codable, Equatable {
    public enum Status: String, Codable, Sendable { case done, skipped, failed }

    public var relativePath: String
    public var path: String
    public var status: Status
    public var duration: Double?
    public var language: Language?
    /// The spoken language when the captions are an English translation of it.
    public var translatedFrom: Language?
    public var tier: TranscriptTier?
    /// How the file was to be recognised (`--tier` resolved for its language), and whether a
    /// second model cross-checked it: what its time counts towards in the speed history.
    public var mode: TierPlan.Mode?
    public var crossChecked: Bool { checkedBy != nil }
    /// The models whose words it has ("tiny.en", "en-us"), and the model that cross-checked them.
    public var models: [String] = []
    public var checkedBy: String?
    public var basicShare: Double?
    public var words: Int?
    public var cues: Int?
    public var violations: Int?
    /// Share of words marked low-confidence, 0...1.
    public var lowConfidenceShare: Double?
    public var seconds: Double
    public var outputs: [String]
    /// Every line the user is warned by, in the order they arose: the file's own (extraction,
    /// captions, copies) and the transcription's notes, rendered by `TranscriptionNote.description`.
    public var warnings: [String]
    /// The transcription's notes, typed (optional, so manifests written before them still read).
    public var notes: [TranscriptionNote]?
    public var error: String?
    /// Chunk outcomes and spans, for the report's timeline.
    public var chunks: [ChunkRecord]
    /// Cue spans with their tier and mean score, for the report's timeline.
    public var cueMarks: [CueMark]
    /// For the review page (optional, so manifests written before them still read): where the
    /// speech detector found speech, whether the input has a picture, and the moments warnings
    /// are about.
    public var speech: [SpeechRegion]?
    public var hasVideo: Bool?
    public var marks: [TimelineMark]?
    /// The video's shot changes (seconds), when cues were timed to them.
    public var shotChanges: [Double]?

    /// Whether a result read back from a manifest (which may be damaged or planted) holds only
    /// what a run records: times on a timeline, shares within 0...1, no negative count.
    var isPlausible: Bool {
        let spans = cueMarks.map { ($0.start, $0.end) } + chunks.map { ($0.start, $0.end) } + (speech ?? []).map { ($0.start, $0.end) }
            + (marks ?? []).map { ($0.start, $0.end) }
        let times = spans.flatMap { [$0.0, $0.1] } + (shotChanges ?? []) + [duration ?? 0, seconds] + (speech ?? []).flatMap(\.pauses)
        let shares = [basicShare, lowConfidenceShare].compactMap { $0 } + cueMarks.compactMap(\.score)
        return times.allSatisfy(MediaTime.isPlausible(seconds:)) && spans.allSatisfy { $0.0 <= $0.1 }
            && shares.allSatisfy { (0.0...1.0).contains($0) } && [words, cues, violations].allSatisfy { ($0 ?? 0) >= 0 }
    }

    public struct CueMark: Sendable, Codable, Equatable {
        public var start: Double
        public var end: Double
        public var tier: Tier?
        public var score: Double?
        /// The cue's lines, low-confidence words marked.
        public var lines: [[MarkedText]]?
    }

    public init(relativePath: String, path: String, status: Status, seconds: Double = 0) {
        self.relativePath = relativePath
        self.path = path
        self.status = status
        self.seconds = seconds
        outputs = []
        warnings = []
        chunks = []
        cueMarks = []
    }

    /// Records what a transcription noted, typed and as warning lines.
    mutating func note(_ notes: [TranscriptionNote]) {
        self.notes = (self.notes ?? []) + notes
        warnings += notes.map(\.description)
    }

    /// "tiny.en", "tiny.en, en-us", "tiny.en (checked by base)"; "-" before any word.
    public var modelLabel: String {
        guard !models.isEmpty else { return "-" }
        return models.joined(separator: ", ") + (checkedBy.map { " (checked by \($0))" } ?? "")
    }

    /// "en", or "es→en" for an English translation of Spanish speech.
    public var languageLabel: String {
        guard let language else { return "-" }
        return translatedFrom.map { "\($0.code)→\(language.code)" } ?? language.code
    }

    /// "modern", "basic", or "mixed (23% basic)".
    public var tierLabel: String {
        guard let tier else { return "-" }
        if tier == .mixed, let share = basicShare { return "mixed (\(Int((share * 100).rounded()))% basic)" }
        return tier == .empty ? "no speech" : tier.rawValue
    }
}
