import Burn
import CapforgeCore
import Captions
import Foundation
import Media
import Speech

/// Captions one input: probe → extract → transcribe the file (Speech's `FileTranscriber`) →
/// cues → write every format → manifest. Failures become a failed `FileResult`, never a stop.
public final class CaptionPipeline: Sendable {
    public let settings: BatchSettings
    public let engines: TierEngines
    public let calibration: CalibrationTable
    public let layout: OutputLayout
    public let settingsKey: String
    let transcription: FileTranscriber
    let style: StyleSheet
    /// Which input each existing output was written for.
    let owners = OutputOwners()

    public init(settings: BatchSettings, engines: TierEngines, calibration: CalibrationTable, layout: OutputLayout) throws {
        self.settings = settings
        self.engines = engines
        self.calibration = calibration
        self.layout = layout
        settingsKey = try settings.key(engines: (engines.modern + engines.basic).map(\.identity), crossChecker: engines.crossChecker?.identity,
                                       calibration: calibration)
        transcription = FileTranscriber(engines: engines, calibration: calibration, options: settings.transcription, translates: settings.translate == true)
        style = try StyleSheet.load(named: settings.style)
    }

    public var resolver: TierResolver { transcription.resolver }

    /// The recorded result when the input's outputs are complete and current (a rerun skips it).
    public func currentResult(_ input: BatchInput) -> FileResult? {
        guard let identity = try? InputIdentity(of: input.url) else { return nil }
        let manifest = Manifest(stateFolder: layout.stateFolder(for: input))
        guard manifest.isCurrent(input.relativePath, identity: identity, settingsKey: settingsKey) else { return nil }
        return manifest.entry(for: input.relativePath)?.result
    }

    /// What an input's outputs may replace: never an input of the batch or a special file, and a
    /// regular file only when a ledger says Capforge wrote it (this tree's, where new ones are
    /// recorded; the user's; those of the trees above the outputs, so that captioning a file of a
    /// folder captioned before knows its outputs), or with `overwrite`.
    public func outputPolicy(for input: BatchInput, protecting inputs: Set<FileID>, overwrite: Bool) -> OutputPolicy {
        let above = OutputLedger.lookup(for: layout.folder(for: input).appendingPathComponent(layout.stem(for: input)))
        return OutputPolicy(protectedFiles: inputs, ledgers: [OutputLedger(stateFolder: layout.stateFolder(for: input))] + above, overwrite: overwrite)
    }

    /// A file whose subtitles are written; what remains is the burn-in (if asked) and the
    /// manifest entry. Split so the runner can overlap one file's burn-in with the next's extraction.
    public struct PreparedFile: Sendable {
        public var result: FileResult
        let input: BatchInput
        let identity: InputIdentity?
        let began: Date
        let burn: BurnIn?
        let mux: SubtitleMux?
    }

    /// Probe → extract → transcribe → cues → write. `beforeInference` runs between
    /// extraction and recognition (the runner waits there for a previous file's burn-in: on two
    /// cores decoding must not overlap inference). Failures become a failed result; only an
    /// interruption throws.
    /// `probe`: the input's probe when the caller already made one.
    /// `policy`: what the outputs may replace (`outputPolicy(for:protecting:overwrite:)`).
    public func prepare(_ input: BatchInput, probe known: MediaProbe? = nil, policy: OutputPolicy, cancellation: Cancellation,
                        beforeInference: () -> Void = {}, emit: (BatchEvent) -> Void) throws -> PreparedFile {
        let began = Date()
        var result = FileResult(relativePath: input.relativePath, path: input.url.path, status: .done)
        var identity: InputIdentity?
        do {
            emit(.stage(input: input, stage: .probe, fraction: 0))
            let probe = try known ?? MediaProbe(path: input.url.path)
            let fileIdentity = try InputIdentity(of: input.url)
            identity = fileIdentity
            result.duration = probe.duration

            emit(.stage(input: input, stage: .extract, fraction: 0))
            // Spooled to disk beside the manifest: a 10-hour recording captions in the memory of a 10-minute one.
            let audio = try SpooledAudio(in: layout.stateFolder(for: input).appendingPathComponent("spool"))
            let known = knownLanguage(probe)
            let extraction = try AudioExtractor(path: input.url.path, selection: known.stream).extract(cancellation: cancellation, silence: audio.appendSilence) {
                try audio.append($0)
            }
            try audio.finish()
            result.warnings += extraction.warnings.map(\.description)
            result.hasVideo = probe.video != nil
            var marks = extraction.warnings.compactMap { warning -> FileResult.TimelineMark? in
                guard case .truncated(let got, let expected) = warning else { return nil }
                return FileResult.TimelineMark(start: got, end: expected, kind: .truncated, text: warning.description)
            }
            beforeInference()

            emit(.stage(input: input, stage: .language, fraction: 0))
            let request = TranscriptionRequest(language: known.language, languageSource: known.source, tier: settings.tier,
                                               translate: settings.translate == true, alsoOriginal: settings.alsoOriginal == true)
            let file = try transcription.plan(audio, request: request)
            result.speech = file.speech
            result.language = file.plan.language
            result.warnings += file.notes.map(\.description)
            emit(.tierResolved(input: input, source: file.languageSource, plan: file.plan, model: modelLabel(file.plan)))
            let passes = try file.passes.get()
            let subtitled = layout.subtitled(for: input, extension: SubtitleMux.outputExtension(for: input.url, container: probe.container))
            var planned = passes.flatMap { pass in
                settings.formats.map { (url: layout.subtitle(for: input, language: pass.captionLanguage, format: $0), kind: OutputKind.captions) }
            }
            if settings.burn != nil, probe.video != nil { planned.append((layout.burned(for: input), .video)) }
            if settings.mux == true, probe.video != nil { planned.append((subtitled, .video)) }
            // Refused outputs (a hand-made file, an input, a device, another input's outputs) fail
            // the file before the long part.
            for output in planned {
                // Another input's output is named as such before any ledger calls it a stranger's.
                try claim(output.url, for: input, identity: fileIdentity, overwrite: policy.overwrite)
                _ = try policy.writing(output.kind).destination(for: output.url)
            }

            // A damaged header can claim any frame rate; frame gaps then use the usual default.
            let fps = FrameTiming.plausible(probe.video?.frameRate)
            if let rate = probe.video?.frameRate, fps == nil {
                result.warnings.append(String(format: "the video claims %g frames per second; caption gaps use %g fps instead", rate, FrameTiming.fallbackRate))
            }
            let video = VideoSize(width: probe.video?.displayWidth ?? 1920, height: probe.video?.displayHeight ?? 1080)
            var written: [WrittenCaptions] = []
            for (number, pass) in passes.enumerated() {
                emit(.stage(input: input, stage: .transcribe, fraction: 0))
                let journal = JournalPlace(folder: layout.stateFolder(for: input).appendingPathComponent("journal"),
                                           name: String(SHA256.hex(of: Data(input.relativePath.utf8)).prefix(24)),
                                           key: "\(settingsKey)-\(fileIdentity.headTailSHA256)-\(fileIdentity.size)")
                let heard = try transcription.transcribe(audio, pass: pass, of: file, journal: journal, cancellation: cancellation) { progress in
                    emit(.chunk(input: input, progress: progress))
                }
                let transcript = heard.transcript
                emit(.stage(input: input, stage: .captions, fraction: 0))
                emit(.stage(input: input, stage: .write, fraction: 0))
                let captions = try write(transcript, of: input, fps: fps, video: video, mediaEnd: probe.mediaEnd(known.stream), policy: policy.writing(.captions))
                heard.discardJournal()
                result.outputs += captions.outputs
                result.warnings += passWarnings(captions, pass: pass, passes: passes.count)
                // The timeline shows the first pass's cues, so its moments are the ones pinned.
                if number == 0 { marks += timelineMarks(transcript, plan: pass.plan) }
                written.append(captions)
            }
            // The summary, the report and the manifest describe what the viewer reads first: the
            // translation when there is one.
            let primary = written[0]
            result.language = primary.transcript.language
            result.translatedFrom = primary.transcript.translatedFrom
            result.tier = primary.transcript.tier
            result.mode = passes[0].plan.mode
            result.models = primary.transcript.engines.map(\.modelLabel)
            result.checkedBy = primary.transcript.checkedBy?.model
            result.basicShare = primary.transcript.basicShare
            result.words = primary.transcript.words.count
            result.cues = primary.built.cues.count
            result.violations = primary.built.violations.count
            result.lowConfidenceShare = primary.quality.lowConfidenceShare
            result.chunks = written.flatMap(\.transcript.chunks)
            result.cueMarks = primary.built.cues.map { cue in
                FileResult.CueMark(start: Double(cue.start) / 1000, end: Double(cue.end) / 1000, tier: cue.tier,
                                   score: cue.words.isEmpty ? nil : cue.words.reduce(0) { $0 + $1.score } / Double(cue.words.count),
                                   lines: cue.markedLines { $0.score < settings.lowConfidence })
            }
            result.marks = marks
            var burn: BurnIn?
            if var options = settings.burn, probe.video != nil {
                options.noticeText = settings.noticeText ?? QualityNotice.text(for: primary.transcript.language)
                burn = BurnIn(input: input.url.path, output: layout.burned(for: input).path, script: primary.ass.document(), styleSheet: style,
                              options: options, outputPolicy: policy.writing(.video))
            } else if settings.burn != nil {
                result.warnings.append("no video stream: nothing to burn captions into")
            }
            var mux: SubtitleMux?
            if settings.mux == true, probe.video != nil {
                // Matroska keeps the ASS styling (the Basic style, the notice); an MP4 text track
                // holds what the SRT holds.
                // One track per caption language, the spoken one first.
                let tracks = written.reversed().map { captions -> SubtitleTrack in
                    let language = captions.transcript.language
                    let title = SubtitleTrack.title(language: language, tier: captions.transcript.tier, translatedFrom: captions.transcript.translatedFrom)
                    return subtitled.pathExtension == "mkv"
                        ? .styled(captions.ass.document(), language: language, title: title)
                        : .text(cues: captions.built.cues, language: language, title: title)
                }
                mux = SubtitleMux(input: input.url.path, output: subtitled.path, tracks: tracks, outputPolicy: policy.writing(.video))
            } else if settings.mux == true {
                result.warnings.append("no video stream: no subtitled copy made (the subtitle files are the captions)")
            }
            return PreparedFile(result: result, input: input, identity: identity, began: began, burn: burn, mux: mux)
        } catch let error where error is Cancelled || cancellation.isCancelled {
            throw BatchError.interrupted
        } catch {
            result.status = .failed
            // Whatever failed first, an input that is gone is the reason (not its permissions).
            var info = stat()
            result.error = lstat(input.url.path, &info) != 0 && errno == ENOENT ? "\(BatchError.inputRemoved(path: input.url.path))" : "\(error)"
            return PreparedFile(result: result, input: input, identity: identity, began: began, burn: nil, mux: nil)
        }
    }

    /// Refuses to replace what Capforge wrote for another input unless `overwrite`; with it, that
    /// input's manifest entry goes, since its outputs are no longer its own.
    func claim(_ url: URL, for input: BatchInput, identity: InputIdentity, overwrite: Bool) throws {
        guard let (owner, manifest) = owners.other(than: input, identity: identity, at: url) else { return }
        guard overwrite else {
            var info = stat()
            throw BatchError.outputOfAnotherInput(path: url.path, owner: owner.path, ownerExists: stat(owner.path, &info) == 0)
        }
        owners.forget(owner, in: manifest)
    }

    /// Burns in and muxes (when asked) and records the manifest entry.
    public func finish(_ prepared: PreparedFile, cancellation: Cancellation, emit: (BatchEvent) -> Void) throws -> FileResult {
        var result = prepared.result
        let input = prepared.input
        // A copy of the video that fails leaves the subtitle files, which were written before it.
        func makeCopy(_ stage: BatchEvent.Stage, failure: String, _ make: () throws -> (output: String, warnings: [String])) throws {
            emit(.stage(input: input, stage: stage, fraction: 0))
            do {
                let made = try make()
                result.outputs.append(made.output)
                result.warnings += made.warnings
            } catch let error where error is Cancelled || cancellation.isCancelled {
                throw BatchError.interrupted
            } catch {
                result.status = .failed
                result.error = [result.error, "\(failure) (subtitle files were written): \(error)"].compactMap { $0 }.joined(separator: "; ")
            }
        }
        if let burn = prepared.burn {
            try makeCopy(.burn, failure: "burn-in failed") {
                let report = try burn.run(cancellation: cancellation) { progress in
                    emit(.stage(input: input, stage: .burn, fraction: progress.fraction))
                }
                return (report.outputPath, report.warnings.map(\.description))
            }
        }
        if let mux = prepared.mux {
            try makeCopy(.mux, failure: "adding the subtitle tracks failed") {
                let report = try mux.run(cancellation: cancellation)
                return (report.outputPath, report.warnings.map(\.description))
            }
        }
        result.seconds = Date().timeIntervalSince(prepared.began)
        if let identity = prepared.identity ?? (try? InputIdentity(of: input.url)) {
            let complete = !result.chunks.contains { $0.outcome == .failed }
            let entry = ManifestEntry(input: identity, settingsKey: settingsKey,
                                      status: result.status != .done ? .failed : complete ? .done : .incomplete, result: result)
            do {
                try Manifest(stateFolder: layout.stateFolder(for: input)).record(entry)
            } catch {
                // Outputs exist but a rerun will not know it: say so rather than pretend.
                result.warnings.append("could not record the manifest entry: \(error)")
            }
        }
        return result
    }

    /// What the hallucination guard, the seams and arbitration did, in words the user reads.
    static func transcriptWarnings(_ transcript: Transcript) -> [String] {
        var warnings: [String] = []
        func excerpt(_ words: [String]) -> String { words.prefix(12).joined(separator: " ") + (words.count > 12 ? " …" : "") }
        for reason in DropReason.allCases {
            let dropped = transcript.droppedWords.filter { $0.reason == reason }.map(\.word)
            guard let first = dropped.first, let last = dropped.last else { continue }
            warnings.append("dropped \(dropped.count) word(s) \(reason.explanation), "
                + "\(Format.duration(first.start))–\(Format.duration(last.end)): “\(excerpt(dropped.map(\.text)))”")
        }
        if let first = transcript.loopCuts.first {
            // The counts tell a long loop from what was kept when both excerpts read the same.
            let words = { (text: String) in
                let words = text.split(separator: " ").map(String.init)
                return "“\(excerpt(words))” (\(words.count) words)"
            }
            warnings.append("the recogniser looped \(transcript.loopCuts.count) time(s) and copies the audio did not back were cut, "
                + "first at \(Format.duration(first.start)): wrote \(words(first.heard)), kept \(words(first.kept)); the JSON lists each (loopCuts)")
        }
        if transcript.wordsOverNoSpeech > 0 {
            warnings.append("\(transcript.wordsOverNoSpeech) word(s) lie where the speech detector found no speech; kept and marked low-confidence")
        }
        if let first = transcript.seamErrors.first {
            warnings.append("\(transcript.seamErrors.count) seam(s) between windows that disagreed could not be heard again, so the overlap's "
                + "middle joined them and a word there may be lost or doubled: \(first)")
        }
        if let beam = transcript.beam, beam.unsureWindows + beam.failedWindows > 0 {
            let windows = beam.beamWindows + beam.unsureWindows + beam.failedWindows
            var parts: [String] = []
            if beam.unsureWindows > 0 { parts.append("\(beam.unsureWindows) too unsure for it (greedy decoding with temperature fallback instead)") }
            if beam.failedWindows > 0 { parts.append("\(beam.failedWindows) where it could not run (greedy decoding instead)") }
            warnings.append("beam search decoded \(beam.beamWindows) of \(windows) 30 s window(s): " + parts.joined(separator: ", "))
        }
        let givenToRival = transcript.arbitrations.filter { $0.winner == .basic }
        if !givenToRival.isEmpty {
            warnings.append("arbitration gave \(givenToRival.count) of \(transcript.arbitrations.count) doubted stretch(es) to the basic tier "
                + "(\(givenToRival.reduce(0) { $0 + $1.rival.count }) word(s), flagged as basic quality); -v or the JSON shows each verdict")
        }
        let failedRival = transcript.arbitrations.filter { $0.rule == .rivalFailed }
        if let first = failedRival.first {
            warnings.append("the basic tier failed on \(failedRival.count) doubted stretch(es); the modern words stand: \(first.error ?? "")")
        }
        return warnings
    }

    /// The model that will transcribe files of `plan` ("tiny.en, cross-checked by base"); nil when none can.
    func modelLabel(_ plan: TierPlan) -> String? {
        guard let model = modelName(plan) else { return nil }
        let checker = isCrossChecked(plan) ? engines.crossChecker.map { ", cross-checked by \($0.identity.model)" } : nil
        return model + (checker ?? "")
    }

    /// The model that will transcribe files of `plan` ("tiny.en"), as results record it.
    func modelName(_ plan: TierPlan) -> String? {
        engines.engine(plan.mode == .basic ? .basic : .modern, for: plan.language)?.identity.modelLabel
    }

    /// Whether `--cross-check` applies to files recognised by `plan`.
    func isCrossChecked(_ plan: TierPlan) -> Bool {
        guard plan.mode != .basic, let modern = engines.engine(.modern, for: plan.language) else { return false }
        return engines.crossChecker(for: plan.language, of: modern.identity) != nil
    }

    /// Where this file's confidences rest on no measurement, and what `--cross-check` could not do.
    func confidenceWarnings(_ transcript: Transcript, engines: TierEngines) -> [String] {
        if transcript.translatedFrom != nil {
            return ["the confidence of translated words is not calibrated (the measured maps are for transcription): "
                + "their low-confidence marks are unmeasured"]
        }
        var warnings = transcript.engines.compactMap { identity -> String? in
            let used = calibration[identity: identity]
            let name = CalibrationTable.key(identity)
            if !used.measured {
                return "the confidence of \(name) is not calibrated on held-out speech here: its raw confidence is used, so its "
                    + "low-confidence marks are unmeasured"
            }
            guard !used.languages.contains(transcript.language.code) else { return nil }
            let measuredOn = used.languages.map { Language($0)?.name ?? $0 }.joined(separator: ", ")
            return "the confidence of \(name) was calibrated on \(measuredOn) speech only: for '\(transcript.language)' its "
                + "low-confidence marks are unmeasured"
        }
        guard let checker = engines.crossChecker else { return warnings }
        let name = "the cross-check model \(checker.identity.model)"
        guard let modern = transcript.engines.first(where: { $0.tier == .modern }) else {
            // --cross-check checks Whisper's words; the basic tier's stay as they were heard.
            return warnings + (transcript.words.isEmpty ? [] : ["not cross-checked: the basic tier transcribed it, and \(name) checks only Whisper's words"])
        }
        if engines.crossChecker(for: transcript.language, of: modern) == nil {
            warnings.append(modern == checker.identity
                ? "not cross-checked: \(name) is the only one that covers '\(transcript.language)', and it transcribed the file itself"
                : "not cross-checked: \(name) does not cover '\(transcript.language)'")
            return warnings
        }
        let pair = CalibrationTable.key(modern, checkedBy: checker.identity)
        if transcript.checkedBy != nil, calibration.crossChecks[pair] == nil {
            warnings.append(calibration.crossCheck(modern, checkedBy: checker.identity) == nil
                ? "\(pair) is not measured: disputed words are listed in the JSON but keep their confidence"
                : "\(pair) is not measured: the pooled rates of the measured pairs weigh its disputes")
        }
        let failed = transcript.chunks.filter { $0.crossCheckError != nil }
        if let first = failed.first {
            warnings.append("\(name) failed on \(failed.count) chunk(s), whose words keep the confidence of one model: "
                + String(format: "%.1f–%.1f s: ", first.start, first.end) + (first.crossCheckError ?? ""))
        }
        return warnings
    }

    /// The audio stream to caption and what is known of its language before listening: as
    /// requested (from that language's stream when there is one), else the stream's tag; nil
    /// leaves it to detection. The run and the dry run both decide by this.
    func knownLanguage(_ probe: MediaProbe) -> (stream: AudioStreamSelection, language: Language?, source: LanguageSource) {
        switch settings.language {
        case .fixed(let wanted):
            let tagged = probe.audioStreams.contains { $0.language == wanted }
            return (tagged ? .language(wanted.code) : .automatic, wanted, .requested)
        case .auto:
            return (.automatic, (try? probe.audioStream(.automatic))?.language, .streamTag)
        }
    }
}

public enum BatchError: Error, CustomStringConvertible, Equatable {
    case interrupted
    case inputRemoved(path: String)
    case outputOfAnotherInput(path: String, owner: String, ownerExists: Bool)

    public var description: String {
        switch self {
        case .interrupted: return "interrupted"
        case .inputRemoved(let path): return "\(path): no longer exists: it was removed or renamed after the run started, so nothing was written for it"
        case .outputOfAnotherInput(let path, let owner, true):
            return "\(path) holds what Capforge wrote for another input, \(owner) (outputs are named without the extension); "
                + "rename one of the two, or caption with --out DIR elsewhere (--overwrite replaces them)"
        case .outputOfAnotherInput(let path, let owner, false):
            return "\(path) holds what Capforge wrote for \(owner), which is no longer there; move it away, or rerun with --overwrite to replace it"
        }
    }
}
