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
                                       calibration: calibration, soundEvents: engines.soundEvents.detector?.name)
        transcription = FileTranscriber(engines: engines, calibration: calibration, options: settings.transcription, translates: settings.translate)
        style = try StyleSheet.load(named: settings.style)
    }

    public var resolver: TierResolver { transcription.resolver }

    /// The recorded result when the input's outputs are complete and current (a rerun skips it).
    public func currentResult(_ input: BatchInput) -> FileResult? {
        guard let identity = try? InputIdentity(of: input.url) else { return nil }
        let manifest = Manifest(stateFolder: layout.stateFolder(for: input))
        var transcript: String?
        if let choice = settings.transcript {
            // One that cannot be read now fails the file when it is done again, and says why.
            do { transcript = try GivenTranscript.digest(choice, for: input) } catch { return nil }
        }
        guard manifest.isCurrent(input.relativePath, identity: identity, settingsKey: key(forTranscript: transcript)) else { return nil }
        return manifest.entry(for: input.relativePath)?.result
    }

    /// What an input's outputs may replace: never an input of the batch or a special file, and a
    /// regular file only when a ledger says Capforge wrote it (this tree's, where new ones are
    /// recorded; the user's; those of the trees above the outputs, so that captioning a file of a
    /// folder captioned before knows its outputs), or with `overwrite`.
    public func outputPolicy(for input: BatchInput, protecting inputs: Set<FileID>, overwrite: Bool) -> OutputPolicy {
        let above = OutputLedger.lookup(for: layout.folder(for: input).appendingPathComponent(layout.stem(for: input)))
        let transcript = settings.transcript.flatMap { FileID(path: GivenTranscript.location($0, for: input).path) }
        return OutputPolicy(protectedFiles: inputs.union([transcript].compactMap { $0 }), ledgers: [OutputLedger(stateFolder: layout.stateFolder(for: input))] + above, overwrite: overwrite)
    }

    /// A file whose subtitles are written; what remains is the burn-in (if asked) and the
    /// manifest entry. Split so the runner can overlap one file's burn-in with the next's extraction.
    public struct PreparedFile: Sendable {
        public var result: FileResult
        let input: BatchInput
        let identity: InputIdentity?
        /// The settings key its manifest entry records (with the transcript's digest when one is given).
        let key: String
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
        var key = settingsKey
        do {
            emit(.stage(input: input, stage: .probe, fraction: 0))
            let probe = try known ?? MediaProbe(path: input.url.path)
            result.duration = probe.duration
            let given = try transcript(for: input, seconds: probe.duration, warnings: &result.warnings)
            key = self.key(forTranscript: given?.digest)
            let fileIdentity = try InputIdentity(of: input.url)
            identity = fileIdentity

            emit(.stage(input: input, stage: .extract, fraction: 0))
            let language = knownLanguage(probe)
            var (audio, marks) = try extract(input, stream: language.stream, warnings: &result.warnings, cancellation: cancellation)
            result.hasVideo = probe.video != nil
            beforeInference()

            emit(.stage(input: input, stage: .language, fraction: 0))
            let request = TranscriptionRequest(language: language.language, languageSource: language.source, tier: settings.tier,
                                               translate: settings.translate, alsoOriginal: settings.alsoOriginal)
            let file = try transcription.plan(audio, request: request)
            result.speech = file.speech
            result.language = file.plan.language
            result.note(file.notes)
            emit(.tierResolved(input: input, source: file.languageSource, plan: file.plan, model: modelLabel(file.plan)))
            let passes = try file.passes.get()
            try claimOutputs(of: input, identity: fileIdentity, passes: passes, probe: probe, policy: policy)

            let written = try captions(of: input, identity: fileIdentity, probe: probe, stream: language.stream, audio: audio, file: file,
                                       given: given, policy: policy, into: &result, marks: &marks, cancellation: cancellation, emit: emit)
            result.describe(written, mode: passes[0].plan.mode, lowConfidence: settings.lowConfidence)
            result.marks = marks
            let (burn, mux) = copies(of: input, written, probe: probe, policy: policy, warnings: &result.warnings)
            return PreparedFile(result: result, input: input, identity: identity, key: key, began: began, burn: burn, mux: mux)
        } catch let error where error is Cancelled || cancellation.isCancelled {
            throw BatchError.interrupted
        } catch {
            result.status = .failed
            // Whatever failed first, an input that is gone is the reason (not its permissions).
            var info = stat()
            result.error = lstat(input.url.path, &info) != 0 && errno == ENOENT ? "\(BatchError.inputRemoved(path: input.url.path))" : "\(error)"
            return PreparedFile(result: result, input: input, identity: identity, key: key, began: began, burn: nil, mux: nil)
        }
    }

    /// The input's audio, spooled beside the manifest, and the timeline marks of what extraction warned of.
    private func extract(_ input: BatchInput, stream: AudioStreamSelection, warnings: inout [String],
                         cancellation: Cancellation) throws -> (SpooledAudio, [TimelineMark]) {
        let (audio, extraction) = try AudioExtractor(path: input.url.path, selection: stream)
            .spool(in: layout.stateFolder(for: input).subfolder("spool"), cancellation: cancellation)
        warnings += extraction.warnings.map(\.description)
        return (audio, extraction.warnings.compactMap { warning -> TimelineMark? in
            guard case .truncated(let got, let expected) = warning else { return nil }
            return TimelineMark(start: got, end: expected, kind: .truncated, text: warning.description)
        })
    }

    /// Refused outputs (a hand-made file, an input, a device, another input's outputs) fail the
    /// file before the long part.
    private func claimOutputs(of input: BatchInput, identity: InputIdentity, passes: [TranscriptionPass], probe: MediaProbe, policy: OutputPolicy) throws {
        var planned = passes.flatMap { pass in
            settings.formats.map { (url: layout.subtitle(for: input, language: pass.captionLanguage, format: $0), kind: OutputKind.captions) }
        }
        if settings.burn != nil, probe.video != nil { planned.append((layout.burned(for: input), .video)) }
        if settings.mux, probe.video != nil { planned.append((subtitled(input, probe), .video)) }
        for output in planned {
            // Another input's output is named as such before any ledger calls it a stranger's.
            try claim(output.url, for: input, identity: identity, overwrite: policy.overwrite)
            _ = try policy.writing(output.kind).destination(for: output.url)
        }
    }

    private func subtitled(_ input: BatchInput, _ probe: MediaProbe) -> URL {
        layout.subtitled(for: input, extension: SubtitleMux.outputExtension(for: input.url, container: probe.container))
    }

    /// The transcript the input's captions are made from, when one is asked for; nil (said)
    /// when `--transcript-beside` finds none. What its reading left out is said too.
    private func transcript(for input: BatchInput, seconds: Double?, warnings: inout [String]) throws -> GivenTranscript? {
        guard let choice = settings.transcript else { return nil }
        guard let given = try GivenTranscript.read(choice, for: input, seconds: seconds) else {
            warnings.append("no \(GivenTranscript.location(choice, for: input).lastPathComponent) beside it: the captions hold what was heard")
            return nil
        }
        warnings += given.text.notes
        return given
    }

    /// The manifest's key for a file: the settings', and the digest of the given transcript when
    /// transcripts are asked for ("none" where `--transcript-beside` found none).
    func key(forTranscript digest: String?) -> String {
        settings.transcript == nil ? settingsKey : "\(settingsKey)-transcript-\(digest ?? "none")"
    }

    /// Each pass heard (resuming from its journal) and its captions written, from `given`'s
    /// words when there is a transcript; outputs, notes and warnings go into `result`, the first
    /// pass's timeline marks into `marks`.
    private func captions(
        of input: BatchInput, identity: InputIdentity, probe: MediaProbe, stream: AudioStreamSelection, audio: any AudioSource,
        file: PlannedTranscription, given: GivenTranscript?, policy: OutputPolicy, into result: inout FileResult, marks: inout [TimelineMark], cancellation: Cancellation,
        emit: (BatchEvent) -> Void
    ) throws -> [WrittenCaptions] {
        // A damaged header can claim any frame rate, and a slideshow's or a high-speed capture's
        // frames are no measure of a caption gap; gaps then use the usual default.
        let fps = FrameTiming.plausible(probe.video?.frameRate)
        if let rate = probe.video?.frameRate, fps == nil {
            result.warnings.append(String(format: "the video claims %g frames per second, outside %g–%g; caption gaps use %g fps instead",
                                          rate, FrameTiming.plausibleRates.lowerBound, FrameTiming.plausibleRates.upperBound, FrameTiming.fallbackRate))
        }
        let video = VideoSize(width: probe.video?.displayWidth ?? 1920, height: probe.video?.displayHeight ?? 1080)
        let journal = JournalPlace(folder: layout.stateFolder(for: input).subfolder("journal"),
                                   name: Manifest.stateName(of: input.relativePath),
                                   key: "\(settingsKey)-\(identity.headTailSHA256)-\(identity.size)")
        let passes = try file.passes.get()
        let shots = try shotChanges(of: input, identity: identity, probe: probe, into: &result, cancellation: cancellation, emit: emit)
        var written: [WrittenCaptions] = []
        for (number, pass) in passes.enumerated() {
            emit(.stage(input: input, stage: .transcribe, fraction: 0))
            let heard = try transcription.transcribe(audio, pass: pass, of: file, journal: journal, cancellation: cancellation) { progress in
                emit(.chunk(input: input, progress: progress))
            }
            emit(.stage(input: input, stage: .captions, fraction: 0))
            let transcript = try given.map { try aligned($0, to: heard.transcript, audio: audio, into: &result, marks: &marks) } ?? heard.transcript
            emit(.stage(input: input, stage: .write, fraction: 0))
            let captions = try write(transcript, of: input, fps: fps, video: video, mediaEnd: probe.mediaEnd(stream), shotChanges: shots,
                                     policy: policy.writing(.captions))
            heard.discardJournal()
            result.outputs += captions.outputs
            result.warnings += captionWarnings(captions, translation: pass.isTranslation && passes.count > 1)
            result.note(heard.notes)
            // The timeline shows the first pass's cues, so its moments are the ones pinned.
            if number == 0 { marks += heard.marks }
            written.append(captions)
        }
        return written
    }

    /// The video's shot changes when cues are to be timed to them (found once per file and
    /// kept); nil when not asked, or when there is no picture or it cannot be decoded (said).
    private func shotChanges(of input: BatchInput, identity: InputIdentity, probe: MediaProbe, into result: inout FileResult,
                             cancellation: Cancellation, emit: (BatchEvent) -> Void) throws -> [Double]? {
        guard settings.shotChanges else { return nil }
        guard probe.video != nil else {
            result.warnings.append("no video stream: no shot changes to time cues to")
            return nil
        }
        emit(.stage(input: input, stage: .shots, fraction: 0))
        do {
            let (shots, notKept) = try ShotChangeCache(folder: layout.stateFolder(for: input).subfolder("shots"))
                .changes(for: input, identity: identity, cancellation: cancellation)
            if let notKept { result.warnings.append("the shot changes could not be kept for a rerun, which will look for them again: \(notKept)") }
            result.shotChanges = shots.changes
            return shots.changes
        } catch let error where !(error is Cancelled) && !cancellation.isCancelled {
            // The picture is not the captions: they are written, timed to the speech alone.
            result.warnings.append("the shot changes could not be found (\(error)): cues are timed to the speech alone")
            return nil
        }
    }

    /// The given transcript's words timed from what was heard; what it lacks or the audio lacks
    /// goes into `result`'s warnings and `marks`.
    private func aligned(_ given: GivenTranscript, to heard: Transcript, audio: any AudioSource, into result: inout FileResult,
                         marks: inout [TimelineMark]) throws -> Transcript {
        // Where speech starts and ends, not the recogniser's context-padded regions.
        let speech = try transcription.speechForTiming(audio).map { TimeSpan(start: $0.start, end: $0.end) }
        let transcript = try given.align(to: heard, speech: speech)
        result.warnings += transcript.alignment!.warnings(tier: transcript.tier, spokenWords: given.spokenWords)
        marks += transcript.alignment!.marks
        return transcript
    }

    /// The burn-in and the subtitled copy asked for, made by `finish`; a file without a picture
    /// gets neither, said in `warnings`.
    private func copies(of input: BatchInput, _ written: [WrittenCaptions], probe: MediaProbe, policy: OutputPolicy,
                        warnings: inout [String]) -> (BurnIn?, SubtitleMux?) {
        var burn: BurnIn?
        if var options = settings.burn, probe.video != nil {
            options.noticeText = settings.noticeText ?? QualityNotice.text(for: written[0].transcript.language)
            burn = BurnIn(input: input.url.path, output: layout.burned(for: input).path, script: written[0].ass.document(), styleSheet: style,
                          options: options, outputPolicy: policy.writing(.video))
        } else if settings.burn != nil {
            warnings.append("no video stream: nothing to burn captions into")
        }
        var mux: SubtitleMux?
        if settings.mux, probe.video != nil {
            let subtitled = subtitled(input, probe)
            // Matroska keeps the ASS styling (the Basic style, the notice); an MP4 text track
            // holds what the SRT holds. One track per caption language, the spoken one first.
            let tracks = written.reversed().map { captions -> SubtitleTrack in
                let language = captions.transcript.language
                let title = SubtitleTrack.title(language: language, tier: captions.transcript.tier, translatedFrom: captions.transcript.translatedFrom)
                return subtitled.pathExtension == "mkv"
                    ? .styled(captions.ass.document(), language: language, title: title)
                    : .text(cues: captions.built.cues, language: language, title: title)
            }
            mux = SubtitleMux(input: input.url.path, output: subtitled.path, tracks: tracks, outputPolicy: policy.writing(.video))
        } else if settings.mux {
            warnings.append("no video stream: no subtitled copy made (the subtitle files are the captions)")
        }
        return (burn, mux)
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
            let entry = ManifestEntry(input: identity, settingsKey: prepared.key,
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

    /// The audio stream to caption and what is known of its language before listening: as
    /// requested (from that language's stream when there is one), else the stream's tag; nil
    /// leaves it to detection. The run and the dry run both decide by this.
    func knownLanguage(_ probe: MediaProbe) -> (stream: AudioStreamSelection, language: Language?, source: LanguageSource) {
        Self.knownLanguage(probe, choice: settings.language)
    }

    static func knownLanguage(_ probe: MediaProbe, choice: LanguageChoice) -> (stream: AudioStreamSelection, language: Language?, source: LanguageSource) {
        switch choice {
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
