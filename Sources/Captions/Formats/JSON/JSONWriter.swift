import CapforgeCore
import Foundation

/// The settings captions were made with, recorded in the JSON output.
public struct CaptionSettings: Codable, Sendable, Equatable {
    public var profile: CaptionProfile
    public var framesPerSecond: Double?
    public var style: String?
    public var lowConfidenceThreshold: Double

    public init(profile: CaptionProfile, framesPerSecond: Double?, style: String? = nil,
                lowConfidenceThreshold: Double = Confidence.defaultThreshold) {
        self.profile = profile
        self.framesPerSecond = framesPerSecond
        self.style = style
        self.lowConfidenceThreshold = lowConfidenceThreshold
    }
}

/// Everything known about a file's captions: every word with both confidences, tier and
/// engine; every cue; engine and model identity; settings; and the quality report.
public struct JSONWriter: TextSubtitleWriter {
    public static let formatName = "capforge-captions"
    public static let formatVersion = 1

    public var transcript: Transcript
    public var cues: [Cue]
    public var settings: CaptionSettings
    public var quality: QualityReport

    public init(transcript: Transcript, cues: [Cue], settings: CaptionSettings, quality: QualityReport) {
        self.transcript = transcript
        self.cues = cues
        self.settings = settings
        self.quality = quality
    }

    private struct Document: Encodable {
        var format = JSONWriter.formatName
        var version = JSONWriter.formatVersion
        var language: Language
        /// The spoken language, when `words` are Whisper's English translation of it.
        var translatedFrom: Language?
        var duration: Double
        var tier: TranscriptTier
        var basicShare: Double
        var engines: [EngineIdentity]
        /// The second model that cross-checked the modern words (`evidence.disputed`).
        var checkedBy: EngineIdentity?
        /// Which speech detector chose the audio that was recognised.
        var speechDetector: String?
        var settings: CaptionSettings
        var quality: QualityReport
        var chunks: [ChunkRecord]
        var words: [Word]
        /// Words left out of the cues, each with its `reason`.
        var droppedWords: [DroppedWord]
        /// Where the recogniser looped: what it wrote and what was kept of it.
        var loopCuts: [LoopCut]
        /// `--tier arbitrate`'s doubted stretches: both engines' words and the deciding rule.
        var arbitrations: [ArbitrationVerdict]
        /// With `--beam`: how many 30 s windows the beam search decoded and how many it left to
        /// greedy decoding; absent otherwise.
        var beam: BeamTally?
        /// With `--transcript`: how the transcript's words matched what was heard, and what
        /// was not heard or not in it; absent otherwise.
        var alignment: TranscriptAlignment?
        /// The music check's sound events and its music alone (not transcribed); absent when
        /// the check was off.
        var sounds: SoundScene?
        var cues: [CueRecord]
    }

    private struct CueRecord: Encodable {
        var number: Int
        var startMs: Int
        var endMs: Int
        var lines: [String]
        var tier: Tier?
    }

    public func render() throws -> String {
        let document = Document(
            language: transcript.language, translatedFrom: transcript.translatedFrom, duration: transcript.duration, tier: transcript.tier,
            basicShare: transcript.basicShare, engines: transcript.engines, checkedBy: transcript.checkedBy, speechDetector: transcript.speechDetector, settings: settings, quality: quality,
            chunks: transcript.chunks, words: transcript.words, droppedWords: transcript.droppedWords, loopCuts: transcript.loopCuts,
            arbitrations: transcript.arbitrations, beam: transcript.beam, alignment: transcript.alignment, sounds: transcript.sounds,
            cues: cues.enumerated().map { CueRecord(number: $0 + 1, startMs: $1.start, endMs: $1.end, lines: $1.lines, tier: $1.tier) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Recognisers can emit NaN confidences; JSON has no such number, so it is spelt out.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
    }
}
