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
}

extension CaptionPipeline {
    /// The dry run's language and tier for a file `--translate` will translate ("es→en",
    /// "modern (base, translating)"); nil when it will not be translated.
    func translationLabel(_ plan: TierPlan) -> (language: String, tier: String)? {
        guard settings.translate == true, plan.language != .english else { return nil }
        guard let engine = transcription.translators?.engine(.modern, for: plan.language) else {
            return ("\(plan.language.code)→en", "cannot translate (no multilingual Whisper model)")
        }
        let original = settings.alsoOriginal == true ? ", then \(plan.language.code) as spoken" : ""
        return ("\(plan.language.code)→en", "modern (\(engine.identity.model), translating\(original))")
    }

    /// Cues by the profile for the caption language, then every format, each file renamed into place.
    /// `mediaEnd`: where the media ends (`MediaProbe.mediaEnd`), which no cue passes.
    func write(_ transcript: Transcript, of input: BatchInput, fps: Double?, video: VideoSize, mediaEnd: Double?, policy: OutputPolicy) throws -> WrittenCaptions {
        let language = transcript.language
        let profile = settings.profile(for: language)
        let builder = try CueBuilder(profile: profile, fps: fps, language: language)
        let built = builder.build(words: transcript.words, mediaEnd: mediaEnd)
        let quality = QualityReport(cues: built.cues, words: transcript.words, rules: builder.rules, lowConfidenceThreshold: settings.lowConfidence)
        let ass = ASSWriter(cues: built.cues, transcript: transcript, video: video, style: style, lowConfidenceThreshold: settings.lowConfidence,
                            noticeText: settings.noticeText ?? QualityNotice.text(for: language))
        var outputs: [String] = []
        // No SRT holds no cues that every parser takes (pysubs2's detection and webvtt-py refuse
        // an empty file): none is written, and passWarnings says so. The other formats say it inside.
        for format in settings.formats where !(format == .srt && built.cues.isEmpty) {
            let url = layout.subtitle(for: input, language: language, format: format)
            let writer: any SubtitleWriter
            switch format {
            case .srt: writer = SRTWriter(cues: built.cues)
            case .vtt: writer = WebVTTWriter(cues: built.cues, transcript: transcript)
            case .ass: writer = ass
            case .json:
                let captionSettings = CaptionSettings(profile: profile, framesPerSecond: fps, style: settings.style,
                                                      lowConfidenceThreshold: settings.lowConfidence)
                writer = JSONWriter(transcript: transcript, cues: built.cues, settings: captionSettings, quality: quality)
            }
            try writer.write(to: url, policy: policy)
            outputs.append(url.path)
        }
        return WrittenCaptions(transcript: transcript, built: built, quality: quality, ass: ass, outputs: outputs)
    }

    /// Where the report's timeline pins what the warnings of a pass say: chunks that fell back
    /// or failed, words dropped over no speech.
    func timelineMarks(_ transcript: Transcript, plan: TierPlan) -> [FileResult.TimelineMark] {
        var marks: [FileResult.TimelineMark] = []
        for chunk in transcript.chunks {
            if chunk.outcome == .failed {
                marks.append(.init(start: chunk.start, end: chunk.end, kind: .failedChunk, text: "not recognised by any tier: " + (chunk.error ?? "")))
            } else if plan.mode == .modern && chunk.tier == .basic {
                marks.append(.init(start: chunk.start, end: chunk.end, kind: .fallback, text: "fell back to the basic tier: " + (chunk.error ?? "the modern tier failed")))
            }
        }
        marks += transcript.droppedWords.map { .init(start: $0.word.start, end: $0.word.end, kind: .dropped, text: "dropped “\($0.word.text)”: \($0.reason.explanation)") }
        marks += transcript.loopCuts.map { .init(start: $0.start, end: $0.end, kind: .dropped, text: "the recogniser looped: wrote “\($0.heard)”, kept “\($0.kept)”") }
        return marks
    }

    /// What a pass did that was not asked for, said wherever the user looks (terminal, summary,
    /// report), not only in the JSON; a translation's own lines say so when both were made.
    func passWarnings(_ captions: WrittenCaptions, pass: TranscriptionPass, passes: Int) -> [String] {
        let transcript = captions.transcript
        var warnings: [String] = []
        if captions.built.cues.isEmpty && settings.formats.contains(.srt) {
            let found = transcript.droppedWords.isEmpty ? "no speech was found" : "no words were kept (the dropped words are listed below)"
            warnings.append("\(found): no SRT written (an SRT without cues is not valid for every reader); "
                + "the other formats are written with no cues")
        }
        warnings += captions.built.splits.filter { $0.reason == .mediaEnd }.map { "cue \($0.cue) \($0.message)" }
        let fellBack = transcript.chunks.filter { pass.plan.mode == .modern && $0.tier == .basic }
        if let first = fellBack.first {
            warnings.append("\(fellBack.count) of \(transcript.chunks.count) chunk(s) fell back to the basic tier (flagged as such): "
                + (first.error ?? "the modern tier failed"))
        }
        warnings += Self.transcriptWarnings(transcript)
        warnings += confidenceWarnings(transcript, engines: pass.engines)
        let failedChunks = transcript.chunks.filter { $0.outcome == .failed }
        if !failedChunks.isEmpty {
            warnings.append("\(failedChunks.count) chunk(s) could not be recognised by any tier: "
                + failedChunks.map { String(format: "%.1f–%.1f s", $0.start, $0.end) }.joined(separator: ", ")
                + "; their speech is missing from the captions, and a rerun retries the file")
        }
        guard pass.isTranslation && passes > 1 else { return warnings }
        return warnings.map { "English translation: " + $0 }
    }
}
