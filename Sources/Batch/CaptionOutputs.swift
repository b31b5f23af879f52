import CapforgeCore
import Captions
import Foundation
import Speech

/// A transcript turned into cues and written in every format asked for.
struct WrittenCaptions {
    let transcript: Transcript
    let built: CueBuildResult
    let quality: QualityReport
    let ass: ASSWriter
    let outputs: [String]
    /// What a format could not carry (SCC's and STL's character sets and grids).
    let formatWarnings: [String]
}

extension CaptionPipeline {
    /// The dry run's language and tier for a file `--translate` will translate ("es→en",
    /// "modern (base, translating)"); nil when it will not be translated.
    func translationLabel(_ plan: TierPlan) -> (language: String, tier: String)? {
        guard settings.translate, plan.language != .english else { return nil }
        guard let engine = transcription.translators?.engine(.modern, for: plan.language) else {
            return ("\(plan.language.code)→en", "cannot translate (no multilingual Whisper model)")
        }
        let original = settings.alsoOriginal ? ", then \(plan.language.code) as spoken" : ""
        return ("\(plan.language.code)→en", "modern (\(engine.identity.model), translating\(original))")
    }

    /// Cues by the profile for the caption language, then every format, each file renamed into place.
    /// `mediaEnd`: where the media ends (`MediaProbe.mediaEnd`), which no cue passes.
    /// `shotChanges`: the video's, which the cues are timed to.
    func write(_ transcript: Transcript, of input: BatchInput, fps: Double?, video: VideoSize, mediaEnd: Double?, shotChanges: [Double]? = nil,
               policy: OutputPolicy) throws -> WrittenCaptions {
        let language = transcript.language
        let profile = settings.profile(for: language)
        let builder = try CueBuilder(profile: profile, fps: fps, language: language)
        let built = builder.build(words: transcript.words, mediaEnd: mediaEnd, shotChanges: shotChanges,
                                  music: settings.sdh ? transcript.sounds?.musicAlone ?? [] : [])
        let quality = QualityReport(cues: built.cues, words: transcript.words, rules: builder.rules, lowConfidenceThreshold: settings.lowConfidence)
        let ass = ASSWriter(cues: built.cues, transcript: transcript, video: video, style: style, lowConfidenceThreshold: settings.lowConfidence,
                            noticeText: settings.noticeText ?? QualityNotice.text(for: language), karaoke: settings.karaoke)
        let captions = CaptionsToWrite(cues: built.cues, transcript: transcript, frameRate: fps, karaoke: settings.karaoke, ass: ass,
                                       settings: CaptionSettings(profile: profile, framesPerSecond: fps, style: settings.style,
                                                                 lowConfidenceThreshold: settings.lowConfidence),
                                       quality: quality)
        var outputs: [String] = []
        var formatWarnings: [String] = []
        // No SRT holds no cues that every parser takes (pysubs2's detection and webvtt-py refuse
        // an empty file): none is written, and captionWarnings says so. The other formats say it inside.
        for format in settings.formats where !(format == .srt && built.cues.isEmpty) {
            let url = layout.subtitle(for: input, language: language, format: format)
            let writer = SubtitleFormats.named(format).writer(for: captions)
            try writer.write(to: url, policy: policy)
            outputs.append(url.path)
            formatWarnings += writer.warnings
        }
        return WrittenCaptions(transcript: transcript, built: built, quality: quality, ass: ass, outputs: outputs, formatWarnings: formatWarnings)
    }

    /// Cues named one by one whose timing to a shot change a harder rule forbade.
    static let namedShotConflicts = 10

    /// What writing a pass's captions did that was not asked for; `translation`: the English
    /// translation of a file that also gets its spoken language's captions.
    func captionWarnings(_ captions: WrittenCaptions, translation: Bool) -> [String] {
        var warnings: [String] = []
        if captions.built.cues.isEmpty && settings.formats.contains(.srt) {
            let found = captions.transcript.droppedWords.isEmpty ? "no speech was found" : "no words were kept (the dropped words are listed below)"
            warnings.append("\(found): no SRT written (an SRT without cues is not valid for every reader); "
                + "the other formats are written with no cues")
        }
        warnings += captions.built.splits.filter { $0.reason == .mediaEnd }.map { "cue \($0.cue) \($0.message)" }
        warnings += captions.formatWarnings
        let kept = captions.built.splits.filter { $0.reason == .shotChange }
        warnings += kept.prefix(Self.namedShotConflicts).map { "cue \($0.cue) \($0.message)" }
        if kept.count > Self.namedShotConflicts {
            warnings.append("\(kept.count - Self.namedShotConflicts) more cues kept their times near a shot change (the JSON's splits list them)")
        }
        if settings.formats.contains(.scc), captions.transcript.words.contains(where: { $0.tier == .basic }) {
            warnings.append("SCC cannot carry the basic-quality flag: the SCC file does not say that some of its captions are the basic tier's")
        }
        return translation ? warnings.map { TranscriptionNote.translationPrefix + $0 } : warnings
    }
}

extension FileResult {
    /// What the summary, the report and the manifest say of the captions: those the viewer reads
    /// first (the translation when there is one). `mode`: the first pass's.
    mutating func describe(_ written: [WrittenCaptions], mode: TierPlan.Mode, lowConfidence: Double) {
        let primary = written[0]
        language = primary.transcript.language
        translatedFrom = primary.transcript.translatedFrom
        tier = primary.transcript.tier
        self.mode = mode
        models = primary.transcript.engines.map(\.modelLabel)
        checkedBy = primary.transcript.checkedBy?.model
        basicShare = primary.transcript.basicShare
        words = primary.transcript.words.count
        cues = primary.built.cues.count
        violations = primary.built.violations.count
        lowConfidenceShare = primary.quality.lowConfidenceShare
        chunks = written.flatMap(\.transcript.chunks)
        cueMarks = primary.built.cues.map { cue in
            CueMark(start: Double(cue.start) / 1000, end: Double(cue.end) / 1000, tier: cue.tier,
                    score: cue.words.isEmpty ? nil : cue.words.reduce(0) { $0 + $1.score } / Double(cue.words.count),
                    lines: cue.markedLines { $0.score < lowConfidence })
        }
    }
}
