import Arguments
import Batch
import Burn
import CapforgeCore
import Captions
import Foundation
import Media
import Speech

private let batchOptions: [Option] = [
    Option("include-ext", value: "LIST", help: "also take files with these extensions from folders (comma-separated, e.g. dat,mod)"),
    Option("lang", value: "auto|CODE", help: "spoken language (default auto: stream tag, then detection, then English)"),
    Option("tier", value: .choice(TierPreference.allCases.map(\.rawValue)), default: BatchSettings().tier.rawValue, help: "which recogniser tier to use"),
    Option("translate", help: "English captions for speech in another language (Whisper's translate task; needs a multilingual model such as base)"),
    Option("also-original", help: "with --translate, also write the captions in the spoken language"),
    Option("transcript", value: "FILE", help: "caption one input from this transcript (text): its words exactly as written, timed from the audio; passages not heard are left out and named, speech it lacks is named"),
    Option("transcript-beside", help: "caption each input NAME.ext from the transcript NAME.txt beside it (as --transcript); an input without one is captioned from what is heard"),
    Option("shot-changes", help: "time cues to the video's shot changes (found as ffmpeg's scdet filter finds them, decoding the video once; kept per file): an in-time within 12 frames of a change moves onto it, an out-time ends 2 frames before it, unless a harder rule forbids it (said)"),
    Option("karaoke", help: "light each word as it is said: ASS \\kf sweeps (burned in with --burn) and WebVTT word timestamps; replaces the low-confidence colour in the ASS"),
    Option("sdh", help: "captions for deaf and hard-of-hearing viewers: a cue such as [music] where music plays with no voice for 2 s or more (needs the music check, which Scripts/setup installs)"),
    Option("profile", value: "auto|NAME|FILE", help: "caption rules (default auto: by the caption language, netflix-fr, netflix-ja, …, else netflix-en); bbc, dcmp, any built-in name, or a JSON profile file"),
    Option("style", value: "NAME", help: "ASS style from Styles/: default, large, top"),
    Option("out", value: "DIR", help: "write outputs under DIR, mirroring the input folders (default: next to each video)"),
    Option("force", help: "redo files whose outputs are current"),
    overwriteOption,
    Option("dry-run", help: "list files with their language, tier and estimated time; transcribe nothing"),
    Option("shard", value: "I/N", help: "process only shard I of N (stable by relative path)"),
    Option("json", help: "newline-delimited JSON events on standard output"),
    Option("report", value: "FILE.html", help: "write a self-contained HTML report"),
    Option("vocab", value: "FILE", help: "terms (one per line) that fix spelling in every tier; Whisper decodes again prompted with them to respell what it heard (twice the time)"),
    Option("model", value: "NAME|PATH", help: "use this Whisper model (a name from 'capforge models list', or a ggml file) instead of choosing among the installed ones"),
    Option("cross-check", value: "MODEL", help: "a second Whisper model (installed name or file) hears every chunk again; words it did not hear are marked low-confidence (costs that model's time too)"),
    Option("precise-timing", help: "DTW word timing (slower, tighter word starts)"),
    Option("engine", value: .choice(WhisperNetworkChoice.allCases.map(\.rawValue)), help: "who runs Whisper's network: capforge (default: Capforge's own runtime over oneDNN, weights quantized to int8 at load on CPUs with VNNI, float32 elsewhere; about twice libwhisper's speed; greedy decoding only) or libwhisper (the wheel's library, f16 weights; the default with --beam, --precise-timing or a --vocab prompt, and for ggml weight types the runtime does not read)"),
    Option("beam", value: .integer(1...8, name: "N"), default: "\(BatchSettings().beamSize)",
           help: "beam search of width N: each beam goes on with its likeliest tokens, as in faster-whisper, pruned where the model is sure; 1 is greedy decoding, with temperature fallback; beam 5 measured less accurate with tiny.en on long English speech, at 1.8x the time, and about as accurate with base, at 1.2x"),
    Option("deadline-factor", value: .number(0...1000, name: "X", aboveLowerBound: true), default: Option.shown(TranscriptionOptions().deadlineFactor),
           help: "a chunk may take X times its length, or X times what the engine was measured to need, before it falls back; never less than "
               + "\(Option.shown(TranscriptionOptions().minimumDeadline)) s, \(Option.shown(TranscriptionOptions().firstCallDeadline)) s before an engine's first chunk"),
    Option("low-confidence", value: .number(0...1, name: "P", aboveLowerBound: false), default: "\(BatchSettings().lowConfidence)",
           help: "mark words whose calibrated confidence is below P"),
    Option("accept", value: .number(0...1, name: "P", aboveLowerBound: false), default: "\(ArbitrationRules().acceptance)",
           help: "arbitrate: modern words below calibrated confidence P get a basic-tier second opinion"),
    Option("tie-margin", value: .number(0...1, name: "X", aboveLowerBound: false), default: "\(ArbitrationRules().tieMargin)",
           help: "arbitrate: the second opinion wins only when more confident by more than X"),
    Option("min-length", value: .integer(0...1000, name: "N"), default: "\(ArbitrationRules().minimumCharacters)",
           help: "arbitrate: a second opinion of fewer than N letters never wins"),
    Option("one-pass", help: "Whisper hears each chunk in one 30 s pass and the next chunk starts where it stopped: about a third faster, a few more wrong words (see README)"),
    Option("no-chunking", help: "recognise each file in one piece (no VAD chunks, no per-chunk fallback); for comparisons"),
    Option("quiet", short: "q", help: "print only the summary and errors"),
    Option("verbose", short: "v", help: "print every stage and chunk; show library warnings"),
]

/// Encoding options shared by `caption --burn` and `burn`.
let burnOptions: [Option] = [
    Option("notice", value: .choice(NoticeMode.allCases.map(\.rawValue)), default: BurnOptions().notice.rawValue,
           help: "the basic-quality notice line: always, never, or (auto) when basic-tier speech is present"),
    Option("notice-text", value: "TEXT", help: "notice text (default: in the caption language where known, else English)"),
    Option("crf", value: .integer(0...51, name: "N"), default: "\(BurnOptions().crf)", help: "x264 constant quality"),
    Option("preset", value: "P", default: BurnOptions().preset, help: "x264 speed preset"),
    Option("codec", value: "NAME", default: BurnOptions().codec, help: "FFmpeg video encoder"),
    Option("allow-missing-glyphs", help: "burn even when no installed font has some characters"),
]

let captionCommand = Subcommand(
    spec: Command(
        "caption", summary: "Caption every video and audio file in the given files and folders (recursively).",
        usage: "PATH... [OPTIONS]",
        options: batchOptions + [
            Option("formats", value: "LIST", help: "comma-separated: \(formatNames) (default srt,ass,vtt,json); ttml is IMSC 1.1 Text, ebu-tt-d is EBU-TT-D (.ebu-tt-d.xml)"),
            Option("burn", help: "also burn the captions into a copy of each video (<name>.captioned.mp4)"),
            Option("sync", help: "instead of captioning, re-time the subtitle files beside each video named after it (talk.fr.srt beside talk.mp4) to its speech, each written as talk.fr.synced.srt (as 'capforge sync')"),
            Option("mux", help: "also add the captions as a subtitle track to a copy of each video (<name>.subtitled.mp4 for MP4/MOV, .mkv otherwise)"),
            Option("jobs", short: "j", value: .integer(1...2, name: "N"), default: "1",
                   need: "use 1 or 2: 2 overlaps a file's burn-in with the next file's audio extraction; files are not transcribed side by side",
                   help: "with --burn, 2 overlaps a file's burn-in with the next file's audio extraction"),
        ] + burnOptions,
        minPositionals: 1),
    run: { args in try runBatch(args, defaultFormats: [.srt, .ass, .vtt, .json]) })

let exportCommand = Subcommand(
    spec: Command(
        "export", summary: "Write subtitle files only (SRT and WebVTT by default), never burn in.",
        usage: "PATH... [OPTIONS]",
        options: batchOptions + [Option("formats", value: "LIST", help: "comma-separated: \(formatNames) (default srt,vtt)")],
        minPositionals: 1),
    run: { args in try runBatch(args, defaultFormats: [.srt, .vtt]) })

let formatNames = SubtitleFormats.all.map(\.id.rawValue).joined(separator: ",")

func batchSettings(_ args: ParsedArguments, defaultFormats: [SubtitleFormat]) throws -> BatchSettings {
    var settings = BatchSettings()
    if let lang = args.value("lang") {
        guard let choice = LanguageChoice(lang) else {
            throw UsageError.invalidValue(option: "lang", value: lang, reason: "not a known language; try an ISO 639 code such as en, de, ko")
        }
        settings.language = choice
    }
    if let tier: TierPreference = args.choice("tier") { settings.tier = tier }
    settings.formats = defaultFormats
    if let list = args.value("formats") {
        let names = list.split(separator: ",").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        guard !names.isEmpty else { throw UsageError.invalidValue(option: "formats", value: list, reason: "name at least one of \(formatNames)") }
        settings.formats = try names.map { name in
            guard let format = SubtitleFormat(rawValue: name.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw UsageError.invalidValue(option: "formats", value: String(name), reason: "formats are \(formatNames)")
            }
            return format
        }
    }
    if let fixed = try profileOption(args) {
        settings.profile = fixed
        settings.profileForEveryLanguage = true
    }
    if let style = args.value("style") { settings.style = style }
    if let vocab = args.value("vocab") {
        settings.glossary = try Glossary(contentsOf: URL(fileURLWithPath: vocab))
        let left = settings.glossary.terms.count - settings.glossary.promptTerms.count
        if left > 0 {
            printError("capforge: warning: \(left) of \(settings.glossary.terms.count) vocabulary terms do not fit in Whisper's prompt; they still fix spelling in every tier")
        }
    }
    settings.preciseTiming = args.flag("precise-timing")
    if let width = args.integer("beam") { settings.beamSize = width }
    let decoding = WhisperOptions(preciseTiming: settings.preciseTiming, beamSize: settings.beamSize, initialPrompt: settings.glossary.prompt)
    var network = decoding.network
    if let named: WhisperNetworkChoice = args.choice("engine") {
        if named == .capforge, !decoding.onlyOnLibwhisper.isEmpty {
            throw UsageError.invalidValue(option: "engine", value: named.rawValue,
                                          reason: "Capforge's own runtime does not yet do \(decoding.onlyOnLibwhisper.joined(separator: ", ")) (--beam, --precise-timing, a --vocab prompt); libwhisper does")
        }
        network = named
    }
    settings.whisperNetwork = network == .libwhisper ? nil : network
    if let x = args.number("deadline-factor") { settings.transcription.deadlineFactor = x }
    if let p = args.number("low-confidence") { settings.lowConfidence = p }
    if let p = args.number("accept") { settings.transcription.arbitration.acceptance = p }
    if let x = args.number("tie-margin") { settings.transcription.arbitration.tieMargin = x }
    if let n = args.integer("min-length") { settings.transcription.arbitration.minimumCharacters = n }
    settings.transcription.glossary = settings.glossary
    settings.transcription.chunking = !args.flag("no-chunking")
    settings.transcription.onePass = args.flag("one-pass")
    settings.noticeText = args.value("notice-text")
    if args.flag("burn") { settings.burn = try parsedBurnOptions(args) }
    if args.flag("mux") { settings.mux = true }
    if args.flag("translate") {
        // Only Whisper translates: the basic tier has nothing to offer, nor to arbitrate with.
        guard settings.tier == .auto || settings.tier == .modern else {
            throw UsageError.invalidValue(option: "tier", value: settings.tier.rawValue, reason: "--translate needs the modern tier (Whisper); the basic tier cannot translate")
        }
        settings.translate = true
        if args.flag("also-original") { settings.alsoOriginal = true }
    } else if args.flag("also-original") {
        throw UsageError.invalidValue(option: "also-original", value: "", reason: "it goes with --translate")
    }
    if args.flag("karaoke") { settings.karaoke = true }
    if args.flag("shot-changes") { settings.shotChanges = true }
    if args.flag("sdh") { settings.sdh = true }
    settings.transcript = try transcriptOption(args)
    if settings.transcript != nil, settings.translate == true {
        throw UsageError.invalidValue(option: "translate", value: "", reason: "a transcript's words are captioned as written; translate the transcript instead")
    }
    return settings
}

/// `--transcript FILE` (checked now: a missing or unreadable one stops the run before it
/// starts) or `--transcript-beside`.
private func transcriptOption(_ args: ParsedArguments) throws -> TranscriptChoice? {
    guard let path = args.value("transcript") else { return args.flag("transcript-beside") ? .beside : nil }
    guard !args.flag("transcript-beside") else {
        throw UsageError.invalidValue(option: "transcript", value: path, reason: "give --transcript FILE for one input or --transcript-beside, not both")
    }
    do {
        return try .file(checking: path)
    } catch {
        throw UsageError.invalidValue(option: "transcript", value: path, reason: "\(error)")
    }
}

func loadEngines(_ args: ParsedArguments, settings: BatchSettings, store: ModelStore = ModelStore()) throws -> TierEngines {
    // A library that is there but does not match the header must stop the run; one that is
    // missing leaves the basic tier (InstalledEngines says so).
    if WhisperLibrary.problem == nil { try WhisperLibrary.verifyABI() }
    if args.flag("verbose") {
        WhisperLibrary.setLogHandler { line in printError("whisper: \(line)") }
    } else {
        WhisperLibrary.setLogHandler(nil)
    }
    let options = WhisperOptions(preciseTiming: settings.preciseTiming, beamSize: settings.beamSize, initialPrompt: settings.glossary.prompt,
                                 network: settings.whisperNetwork ?? .libwhisper)
    let engines: TierEngines
    do {
        engines = try InstalledEngines.discover(
            store: store, whisperModel: args.value("model"), crossCheck: args.value("cross-check"), whisperOptions: options)
    } catch {
        throw asUsageError(error, args)
    }
    // Asked for by name, the music labels are a contract, not a warning.
    if settings.sdh == true, let reason = engines.soundEvents.reason {
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

private func runBatch(_ args: ParsedArguments, defaultFormats: [SubtitleFormat]) throws -> Int32 {
    let settings = try batchSettings(args, defaultFormats: defaultFormats)
    let shard = try args.value("shard").map { text -> Shard in
        guard let shard = Shard(text) else { throw UsageError.invalidValue(option: "shard", value: text, reason: "use I/N with 1 ≤ I ≤ N, e.g. 2/8") }
        return shard
    }
    let alsoExtensions = Set((args.value("include-ext") ?? "").split(separator: ",").map {
        String($0.trimmingCharacters(in: .whitespaces).drop { $0 == "." })
    }.filter { !$0.isEmpty })
    let (found, problems, skipped) = InputScanner.scan(args.positionals, alsoExtensions: alsoExtensions)
    let inputs = found.filter { shard?.contains($0.relativePath) ?? true }
    if case .file(let path) = settings.transcript, found.count > 1 {
        throw UsageError.invalidValue(option: "transcript", value: Format.terminalSafe(path),
                                      reason: "a transcript is one recording's, and \(found.count) inputs were found; caption one file with it, or put NAME.txt beside each and use --transcript-beside")
    }
    for problem in problems { printError("capforge: \(Format.terminalSafe(problem.description))") }
    if args.flag("sync") { return try runFolderSync(args, inputs: inputs, problems: problems, settings: settings) }
    let layout = OutputLayout(outputRoot: args.value("out").map { URL(fileURLWithPath: $0) })
    let report = try args.value("report").map { path -> URL in
        let url = URL(fileURLWithPath: path)
        try refuseReportPath(url, inputs: inputs, layout: layout)
        return url
    }

    let store = ModelStore()
    let engines = try loadEngines(args, settings: settings, store: store)
    let pipeline: CaptionPipeline
    do {
        pipeline = try CaptionPipeline(settings: settings, engines: engines, calibration: MeasuredCalibration.table, layout: layout)
    } catch {
        throw asUsageError(error, args)
    }

    if args.flag("dry-run") {
        printLine(TerminalText(lines: DryRun.listing(inputs, pipeline: pipeline, force: args.flag("force"))))
        if let note = Summary.skippedNote(skipped) { printLine("warning: \(note)") }
        return problems.isEmpty ? ExitCode.success : ExitCode.failure
    }

    let reporter: BatchReporter
    if args.flag("json") {
        reporter = JSONLinesReporter()
    } else if isatty(STDERR_FILENO) == 1 && !args.flag("verbose") {
        reporter = TerminalReporter(color: ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
    } else {
        reporter = PlainReporter(verbose: args.flag("verbose"))
    }
    let quiet = args.flag("quiet")
    let cancellation = Cancellation()
    Interrupts.install(cancellation)
    // The one overlap there is: a file's burn-in beside the next file's extraction. More jobs
    // would promise what the runner does not do.
    let jobs = args.integer("jobs") ?? 1
    if jobs == 2 && !args.flag("burn") {
        printError("capforge: warning: --jobs 2 overlaps burn-in with the next file's extraction; without --burn it changes nothing")
    }
    // The page is written last: what would stop it (a folder, a file Capforge did not write) is said before the run.
    let reportPolicy = report.map { namedOutputPolicy($0, args: args).writing(.report).protecting(inputs.map(\.url.path)) }
    if let report, let reportPolicy { _ = try reportPolicy.destination(for: report) }
    let runner = BatchRunner(pipeline: pipeline, force: args.flag("force"), jobs: jobs, overwrite: args.flag("overwrite"))
    let showsEvents = !quiet || args.flag("json")
    let (processed, interrupted, batchSeconds) = runner.run(inputs, cancellation: cancellation) { event in
        if showsEvents { reporter.handle(event) }
    }
    // What the scan could not look at fails like a file, in the summary and the report.
    let results = processed + problems.map(\.failedResult)
    let finished = Set(processed.map(\.path))
    let unfinished = inputs.filter { !finished.contains($0.url.path) }.map(\.relativePath)
    let runWarnings = startupWarnings(engines, store: store) + [Summary.skippedNote(skipped)].compactMap { $0 }
    if !args.flag("json") {
        printLine(TerminalText(lines: Summary.table(results, interrupted: interrupted, seconds: batchSeconds, unfinished: unfinished)))
        for warning in runWarnings { printLine("warning: \(warning)") }
    }
    if let report, let reportPolicy {
        try AtomicFile.write(HTMLReport.render(results, warnings: runWarnings, folder: report.standardizedFileURL.deletingLastPathComponent()), to: report,
                             policy: reportPolicy)
    }
    if interrupted { return Interrupts.exitCode }
    return results.contains { $0.status == .failed } ? ExitCode.failure : ExitCode.success
}

/// The review page may not take the place of an input, of any output this run may write
/// (whatever the spelling or link), or of Capforge's own state: refused before the run.
func refuseReportPath(_ report: URL, inputs: [BatchInput], layout: OutputLayout) throws {
    let target = FileID(path: report.path)
    func refuse(_ reason: String) -> UsageError { .invalidValue(option: "report", value: Format.terminalSafe(report.relativePath), reason: reason + "; name a file of its own, such as review.html") }
    if let input = inputs.first(where: { target != nil && FileID(path: $0.url.path) == target }) {
        throw refuse("it is the input \(Format.terminalSafe(input.url.path))")
    }
    if let input = inputs.first(where: { layout.mayWrite(report, for: $0) }) {
        let resolved = OutputPolicy.resolvedPath(report)
        let place = resolved.lastPathComponent == report.lastPathComponent ? "there" : "at \(Format.terminalSafe(resolved.path)), where it leads"
        throw refuse("this run writes the outputs of \(Format.terminalSafe(input.relativePath)) \(place)")
    }
    if OutputPolicy.resolvedPath(report).pathComponents.contains(".capforge") {
        throw refuse("it is inside Capforge's state folder (.capforge)")
    }
}

/// The encoder and notice options of `caption --burn` and `burn`; the notice text is the caller's.
func parsedBurnOptions(_ args: ParsedArguments) throws -> BurnOptions {
    var burn = BurnOptions()
    if let mode: NoticeMode = args.choice("notice") { burn.notice = mode }
    if let n = args.integer("crf") { burn.crf = n }
    if let preset = args.value("preset") { burn.preset = preset }
    if let codec = args.value("codec") { burn.codec = codec }
    burn.allowMissingGlyphs = args.flag("allow-missing-glyphs")
    return burn
}

let overwriteOption = Option("overwrite", help: "replace existing files Capforge did not write (never an input, a device or a FIFO)")

/// For a path the user named (`-o`, `--report`): the user's ledger and those of the batch trees
/// above it say which existing files Capforge wrote; a device or FIFO there is written into.
func namedOutputPolicy(_ url: URL, args: ParsedArguments) -> OutputPolicy {
    OutputPolicy(ledgers: OutputLedger.lookup(for: url), overwrite: args.flag("overwrite"), streamsToSpecialFiles: true)
}
