import Arguments
import Batch
import Burn
import CapforgeCore
import Captions
import Foundation
import Media
import Speech

/// `caption` and `export`, as the table decodes them: the settings, and how the run goes.
struct CaptionOptions: CommandOptions {
    var settings = BatchSettings()
    var alsoExtensions: Set<String> = []
    var models = ModelChoices()
    /// nil: as the decoding asks (`WhisperOptions.network`).
    var engine: WhisperNetworkChoice?
    var vocabulary: String?
    var transcriptFile: String?
    var transcriptBeside = false
    var out: String?
    var report: String?
    var shard: Shard?
    var force = false
    var overwrite = false
    var dryRun = false
    var json = false
    var quiet = false
    var verbose = false
    var burn = false
    var encoding = EncodingOptions()
    var sync = false
    var jobs = 1
}

/// The encoder and notice options of `caption --burn` and `burn`.
struct EncodingOptions: Sendable {
    var burn = BurnOptions()
    /// nil: the notice in the caption language (`QualityNotice`).
    var noticeText: String?
}

private typealias CaptionField = OptionTable<CaptionOptions>.Field

private let batchOptions: [CaptionField] = [
    .parsed("include-ext", \.alsoExtensions, value: "LIST", help: "also take files with these extensions from folders (comma-separated, e.g. dat,mod)") { list in
        Set(list.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces).drop { $0 == "." }) }.filter { !$0.isEmpty })
    },
    .parsed("lang", \.settings.language, value: "auto|CODE", help: "spoken language (default auto: stream tag, then detection, then English)") { code in
        guard let choice = LanguageChoice(code) else { throw OptionRefusal("not a known language; try an ISO 639 code such as en, de, ko") }
        return choice
    },
    .choice("tier", \.settings.tier, help: "which recogniser tier to use"),
    .flag("translate", \.settings.translate, help: "English captions for speech in another language (Whisper's translate task; needs a multilingual model such as base)"),
    .flag("also-original", \.settings.alsoOriginal, help: "with --translate, also write the captions in the spoken language"),
    .text("transcript", \.transcriptFile, value: "FILE", help: "caption one input from this transcript (text): its words exactly as written, timed from the audio; passages not heard are left out and named, speech it lacks is named"),
    .flag("transcript-beside", \.transcriptBeside, help: "caption each input NAME.ext from the transcript NAME.txt beside it (as --transcript); an input without one is captioned from what is heard"),
    .flag("shot-changes", \.settings.shotChanges, help: "time cues to the video's shot changes (found as ffmpeg's scdet filter finds them, decoding the video once; kept per file): an in-time within 12 frames of a change moves onto it, an out-time ends 2 frames before it, unless a harder rule forbids it (said)"),
    .flag("karaoke", \.settings.karaoke, help: "light each word as it is said: ASS \\kf sweeps (burned in with --burn) and WebVTT word timestamps; replaces the low-confidence colour in the ASS"),
    .flag("sdh", \.settings.sdh, help: "captions for deaf and hard-of-hearing viewers: a cue such as [music] where music plays with no voice for 2 s or more (needs the music check, which Scripts/setup installs)"),
    CaptionField(Option("profile", value: "auto|NAME|FILE", help: "caption rules (default auto: by the caption language, netflix-fr, netflix-ja, …, else netflix-en); bbc, dcmp, any built-in name, or a JSON profile file")) { options, text in
        guard let profile = try profileChoice(text) else { return }
        options.settings.profile = profile
        options.settings.profileForEveryLanguage = true
    },
    .parsed("style", \.settings.style, value: "NAME", help: "ASS style from Styles/: default, large, top") { $0 },
    .text("out", \.out, value: "DIR", help: "write outputs under DIR, mirroring the input folders (default: next to each video)"),
    .flag("force", \.force, help: "redo files whose outputs are current"),
    .flag("overwrite", \.overwrite, help: overwriteHelp),
    .flag("dry-run", \.dryRun, help: "list files with their language, tier and estimated time; transcribe nothing"),
    .parsed("shard", \.shard, value: "I/N", help: "process only shard I of N (stable by relative path)") { text in
        guard let shard = Shard(text) else { throw OptionRefusal("use I/N with 1 ≤ I ≤ N, e.g. 2/8") }
        return shard
    },
    .flag("json", \.json, help: "newline-delimited JSON events on standard output"),
    .text("report", \.report, value: "FILE.html", help: "write a self-contained HTML report"),
    .text("vocab", \.vocabulary, value: "FILE", help: "terms (one per line) that fix spelling in every tier; Whisper decodes again prompted with them to respell what it heard (twice the time)"),
    .text("model", \.models.transcribing, value: "NAME|PATH", help: "use this Whisper model (a name from 'capforge models list', or a ggml file) instead of choosing among the installed ones"),
    .text("cross-check", \.models.crossChecking, value: "MODEL", help: "a second Whisper model (installed name or file) hears every chunk again; words it did not hear are marked low-confidence (costs that model's time too)"),
    .flag("precise-timing", \.settings.preciseTiming, help: "DTW word timing (slower, tighter word starts)"),
    .choice("engine", \.engine, help: "who runs Whisper's network: capforge (default: Capforge's own runtime over oneDNN, weights quantized to int8 at load on CPUs with VNNI, float32 elsewhere; about twice libwhisper's speed; greedy decoding only) or libwhisper (the wheel's library, f16 weights; the default with --beam, --precise-timing or a --vocab prompt, and for ggml weight types the runtime does not read)"),
    .integer("beam", \.settings.beamSize, 1...8,
             help: "beam search of width N: each beam goes on with its likeliest tokens, as in faster-whisper, pruned where the model is sure; 1 is greedy decoding, with temperature fallback; beam 5 measured less accurate with tiny.en on long English speech, at 1.8x the time, and about as accurate with base, at 1.2x"),
    .number("deadline-factor", \.settings.transcription.deadlineFactor, 0...1000, value: "X", aboveLowerBound: true,
            help: "a chunk may take X times its length, or X times what the engine was measured to need, before it falls back; never less than "
                + "\(Option.shown(TranscriptionOptions().minimumDeadline)) s, \(Option.shown(TranscriptionOptions().firstCallDeadline)) s before an engine's first chunk"),
    .number("low-confidence", \.settings.lowConfidence, 0...1, value: "P", help: "mark words whose calibrated confidence is below P"),
    .number("accept", \.settings.transcription.arbitration.acceptance, 0...1, value: "P",
            help: "arbitrate: modern words below calibrated confidence P get a basic-tier second opinion"),
    .number("tie-margin", \.settings.transcription.arbitration.tieMargin, 0...1, value: "X", help: "arbitrate: the second opinion wins only when more confident by more than X"),
    .integer("min-length", \.settings.transcription.arbitration.minimumCharacters, 0...1000, help: "arbitrate: a second opinion of fewer than N letters never wins"),
    .flag("one-pass", \.settings.transcription.onePass, help: "Whisper hears each chunk in one 30 s pass and the next chunk starts where it stopped: about a third faster, a few more wrong words (see README)"),
    .flag("no-chunking", \.settings.transcription.chunking, to: false, help: "recognise each file in one piece (no VAD chunks, no per-chunk fallback); for comparisons"),
    .flag("quiet", short: "q", \.quiet, help: "print only the summary and errors"),
    .flag("verbose", short: "v", \.verbose, help: "print every stage and chunk; show library warnings"),
]

/// Encoding options shared by `caption --burn` and `burn`.
let encodingOptions: [OptionTable<EncodingOptions>.Field] = [
    .choice("notice", \.burn.notice, help: "the basic-quality notice line: always, never, or (auto) when basic-tier speech is present"),
    .text("notice-text", \.noticeText, value: "TEXT", help: "notice text (default: in the caption language where known, else English)"),
    .integer("crf", \.burn.crf, 0...51, help: "x264 constant quality"),
    .text("preset", \.burn.preset, value: "P", help: "x264 speed preset"),
    .text("codec", \.burn.codec, value: "NAME", help: "FFmpeg video encoder"),
    .flag("allow-missing-glyphs", \.burn.allowMissingGlyphs, help: "burn even when no installed font has some characters"),
]

/// `--formats`, its default the command's.
private func formatsOption(help: String) -> CaptionField {
    CaptionField(Option("formats", value: "LIST", help: help), shownDefault: { $0.settings.formats.map(\.rawValue).joined(separator: ",") }) { options, list in
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { throw OptionRefusal("name at least one of \(formatNames)") }
        options.settings.formats = try names.map { name in
            guard let format = SubtitleFormat(rawValue: name.lowercased()) else {
                throw UsageError.invalidValue(option: "formats", value: name, reason: "formats are \(formatNames)")
            }
            return format
        }
    }
}

let captionCommand = Subcommand(
    "caption", summary: "Caption every video and audio file in the given files and folders (recursively).", usage: "PATH... [OPTIONS]",
    options: OptionTable(initial: CaptionOptions(), batchOptions + [
        formatsOption(help: "comma-separated: \(formatNames); ttml is IMSC 1.1 Text, ebu-tt-d is EBU-TT-D (.ebu-tt-d.xml)"),
        .flag("burn", \.burn, help: "also burn the captions into a copy of each video (<name>.captioned.mp4)"),
        .flag("sync", \.sync, help: "instead of captioning, re-time the subtitle files beside each video named after it (talk.fr.srt beside talk.mp4) to its speech, each written as talk.fr.synced.srt (as 'capforge sync')"),
        .flag("mux", \.settings.mux, help: "also add the captions as a subtitle track to a copy of each video (<name>.subtitled.mp4 for MP4/MOV, .mkv otherwise)"),
        .integer("jobs", short: "j", \.jobs, 1...2,
                 need: "use 1 or 2: 2 overlaps a file's burn-in with the next file's audio extraction; files are not transcribed side by side",
                 help: "with --burn, 2 overlaps a file's burn-in with the next file's audio extraction"),
    ] + OptionTable.Field.lifted(encodingOptions, into: \.encoding)),
    positionals: 1...Int.max, run: runBatch)

let exportCommand = Subcommand(
    "export", summary: "Write subtitle files only (SRT and WebVTT by default), never burn in.", usage: "PATH... [OPTIONS]",
    options: OptionTable(initial: { var options = CaptionOptions(); options.settings.formats = [.srt, .vtt]; return options }(),
                         batchOptions + [formatsOption(help: "comma-separated: \(formatNames)")]),
    positionals: 1...Int.max, run: runBatch)

let formatNames = SubtitleFormats.all.map(\.id.rawValue).joined(separator: ",")

extension CaptionOptions {
    /// The run's settings: the options' own, with what one option means for another settled.
    func batchSettings() throws -> BatchSettings {
        var settings = settings
        if let vocabulary {
            settings.glossary = try Glossary(contentsOf: URL(fileURLWithPath: vocabulary))
            let left = settings.glossary.terms.count - settings.glossary.promptTerms.count
            if left > 0 {
                printError("capforge: warning: \(left) of \(settings.glossary.terms.count) vocabulary terms do not fit in Whisper's prompt; they still fix spelling in every tier")
            }
        }
        settings.transcription.glossary = settings.glossary
        let decoding = WhisperOptions(preciseTiming: settings.preciseTiming, beamSize: settings.beamSize, initialPrompt: settings.glossary.prompt)
        if engine == .capforge, !decoding.onlyOnLibwhisper.isEmpty {
            throw UsageError.invalidValue(option: "engine", value: WhisperNetworkChoice.capforge.rawValue,
                                          reason: "Capforge's own runtime does not yet do \(decoding.onlyOnLibwhisper.joined(separator: ", ")) (--beam, --precise-timing, a --vocab prompt); libwhisper does")
        }
        settings.whisperNetwork = engine ?? decoding.network
        settings.noticeText = encoding.noticeText
        if burn { settings.burn = encoding.burn }
        if settings.translate {
            // Only Whisper translates: the basic tier has nothing to offer, nor to arbitrate with.
            guard settings.tier == .auto || settings.tier == .modern else {
                throw UsageError.invalidValue(option: "tier", value: settings.tier.rawValue, reason: "--translate needs the modern tier (Whisper); the basic tier cannot translate")
            }
        } else if settings.alsoOriginal {
            throw UsageError.invalidValue(option: "also-original", value: "", reason: "it goes with --translate")
        }
        settings.transcript = try transcriptChoice()
        if settings.transcript != nil, settings.translate {
            throw UsageError.invalidValue(option: "translate", value: "", reason: "a transcript's words are captioned as written; translate the transcript instead")
        }
        return settings
    }

    /// `--transcript FILE` (checked now: a missing or unreadable one stops the run before it
    /// starts) or `--transcript-beside`.
    private func transcriptChoice() throws -> TranscriptChoice? {
        guard let path = transcriptFile else { return transcriptBeside ? .beside : nil }
        guard !transcriptBeside else {
            throw UsageError.invalidValue(option: "transcript", value: path, reason: "give --transcript FILE for one input or --transcript-beside, not both")
        }
        do {
            return try .file(checking: path)
        } catch {
            throw UsageError.invalidValue(option: "transcript", value: path, reason: "\(error)")
        }
    }
}

func loadEngines(_ models: ModelChoices, verbose: Bool, settings: BatchSettings, store: ModelStore = ModelStore()) throws -> TierEngines {
    // A library that is there but does not match the header must stop the run; one that is
    // missing leaves the basic tier (InstalledEngines says so).
    if WhisperLibrary.problem == nil { try WhisperLibrary.verifyABI() }
    if verbose {
        WhisperLibrary.setLogHandler { line in printError("whisper: \(line)") }
    } else {
        WhisperLibrary.setLogHandler(nil)
    }
    let options = WhisperOptions(preciseTiming: settings.preciseTiming, beamSize: settings.beamSize, initialPrompt: settings.glossary.prompt,
                                 network: settings.whisperNetwork)
    let engines: TierEngines
    do {
        engines = try InstalledEngines.discover(
            store: store, named: models, whisperOptions: options)
    } catch {
        throw asUsageError(error)
    }
    // Asked for by name, the music labels are a contract, not a warning.
    if settings.sdh, let reason = engines.soundEvents.reason {
        throw UsageError.unmet(option: "sdh", reason: "needs the music check, which is off: \(reason)")
    }
    for warning in startupWarnings(engines, store: store) { printError("capforge: warning: \(warning)") }
    return engines
}

/// What limits this run before it starts: broken models left out, no modern model at all, no music check.
func startupWarnings(_ engines: TierEngines, store: ModelStore) -> [String] {
    var warnings = engines.ignoredModels + [engines.soundEvents.notice].compactMap { $0 }
    if engines.modern.isEmpty, engines.modernLibraryAvailable {
        warnings.append("no usable Whisper model in \(store.searchPath.map(\.path).joined(separator: " or ")) (set CAPFORGE_MODELS, or run 'capforge models import DIR'): "
            + "only the basic tier is available, and its captions are flagged as basic quality")
    }
    return warnings
}

@Sendable private func runBatch(_ options: CaptionOptions, paths: [String]) throws -> Int32 {
    let settings = try options.batchSettings()
    let run: CaptionRun
    do {
        run = try CaptionRun(paths: paths, alsoExtensions: options.alsoExtensions, shard: options.shard,
                             layout: OutputLayout(outputRoot: options.out.map { URL(fileURLWithPath: $0) }), transcript: settings.transcript)
    } catch {
        throw usageError(error)
    }
    for problem in run.problems { printError("capforge: \(Format.terminalSafe(problem.description))") }
    if options.sync { return try runFolderSync(options, inputs: run.inputs, problems: run.problems, settings: settings) }
    let reviewPage = options.report.map { URL(fileURLWithPath: $0) }
    do {
        try reviewPage.map(run.checkReviewPage)
    } catch {
        throw usageError(error)
    }

    let store = ModelStore()
    let engines = try loadEngines(options.models, verbose: options.verbose, settings: settings, store: store)
    let pipeline: CaptionPipeline
    do {
        pipeline = try CaptionPipeline(settings: settings, engines: engines, calibration: MeasuredCalibration.table, layout: run.layout)
    } catch {
        throw asUsageError(error)
    }

    if options.dryRun {
        printLine(TerminalText(lines: DryRun.listing(run.inputs, pipeline: pipeline, force: options.force)))
        if let note = Summary.skippedNote(run.skipped) { printLine("warning: \(note)") }
        return run.problems.isEmpty ? ExitCode.success : ExitCode.failure
    }

    let reporter: BatchReporter
    if options.json {
        reporter = JSONLinesReporter()
    } else if isatty(STDERR_FILENO) == 1 && !options.verbose {
        reporter = TerminalReporter(color: ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
    } else {
        reporter = PlainReporter(verbose: options.verbose)
    }
    let cancellation = Cancellation()
    Interrupts.install(cancellation)
    // The one overlap there is: a file's burn-in beside the next file's extraction. More jobs
    // would promise what the runner does not do.
    if options.jobs == 2 && !options.burn {
        printError("capforge: warning: --jobs 2 overlaps burn-in with the next file's extraction; without --burn it changes nothing")
    }
    let pagePolicy = try reviewPage.map { try run.reviewPagePolicy($0, overwrite: options.overwrite) }
    let showsEvents = !options.quiet || options.json
    let report = run.run(BatchRunner(pipeline: pipeline, force: options.force, jobs: options.jobs, overwrite: options.overwrite),
                         warnings: startupWarnings(engines, store: store), cancellation: cancellation) { event in
        if showsEvents { reporter.handle(event) }
    }
    if !options.json {
        printLine(TerminalText(lines: Summary.table(report.results, interrupted: report.interrupted, seconds: report.seconds, unfinished: report.unfinished)))
        for warning in report.warnings { printLine("warning: \(warning)") }
    }
    if let reviewPage, let pagePolicy { try run.writeReviewPage(report, to: reviewPage, policy: pagePolicy) }
    if report.interrupted { return Interrupts.exitCode }
    return report.failed ? ExitCode.failure : ExitCode.success
}

/// What the run refuses before it starts, as the usage error it is, naming the option.
private func usageError(_ error: CaptionRunError) -> UsageError {
    switch error {
    case .transcriptForManyInputs(let path, _):
        return .invalidValue(option: "transcript", value: Format.terminalSafe(path),
                             reason: "\(error); caption one file with it, or put NAME.txt beside each and use --transcript-beside")
    case .reviewPage(let page, let reason):
        return .invalidValue(option: "report", value: Format.terminalSafe(page.relativePath), reason: reason + "; name a file of its own, such as review.html")
    }
}

let overwriteHelp = "replace existing files Capforge did not write (never an input, a device or a FIFO)"
