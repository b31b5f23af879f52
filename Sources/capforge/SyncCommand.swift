import Arguments
import Batch
import CapforgeCore
import Captions
import Foundation
import Media
import Speech

struct SyncOptions: CommandOptions {
    var out: String?
    var language: Language?
    var tier = BatchSettings().tier
    var models = ModelChoices()
    var json = false
    var overwrite = false
    var verbose = false
}

let syncCommand = Subcommand(
    "sync", summary: "Re-time a subtitle file to a copy of its video: offset, frame-rate drift and cuts found from the speech; only times change.",
    usage: "VIDEO SUBS [--out OUT] [OPTIONS]",
    options: OptionTable(initial: SyncOptions(), [
        .text("out", short: "o", \.out, value: "OUT", help: "the re-timed subtitles (default <subs name>.synced.<ext> beside SUBS)"),
        .parsed("lang", \.language, value: "CODE", help: "the speech's language (default: the one the subtitle file's name says, talk.fr.srt, else the audio's tag, else detected)",
                parse: languageCode),
        .choice("tier", \.tier, help: "modern matches the cues' words to recognised words; basic times by where speech is"),
        .text("model", \.models.transcribing, value: "NAME|PATH", help: "the Whisper model to hear the speech with"),
        .flag("json", \.json, help: "print the result as one JSON object"),
        .flag("overwrite", \.overwrite, help: overwriteHelp),
        .flag("verbose", short: "v", \.verbose, help: "show library warnings"),
    ]),
    positionals: 2...2
) { options, paths in
    let video = URL(fileURLWithPath: paths[0]).standardizedFileURL
    let subtitles = URL(fileURLWithPath: paths[1]).standardizedFileURL
    let named = Language(subtitles.deletingPathExtension().pathExtension)
    let language = options.language ?? named
    let output = options.out.map { URL(fileURLWithPath: $0).standardizedFileURL }
        ?? subtitles.deletingPathExtension().appendingPathExtension("synced").appendingPathExtension(subtitles.pathExtension)
    let policy = OutputPolicy.named(output, overwrite: options.overwrite).writing(.captions).protecting([video.path, subtitles.path])
    var settings = BatchSettings()
    settings.tier = options.tier
    let engines = try loadEngines(options.models, verbose: options.verbose, settings: settings)
    let cancellation = Cancellation()
    Interrupts.install(cancellation)
    let report: SyncReport
    do {
        report = try SubtitleSyncJob(engines: engines, tier: settings.tier).run(
            video: video, subtitles: subtitles, output: output, language: language, policy: policy, cancellation: cancellation) { stage in
            if !options.json { printError("capforge sync: \(stage)") }
        }
    } catch is Cancelled {
        printError("capforge sync: interrupted; \(Format.terminalSafe(output.path)) was not written")
        return Interrupts.exitCode
    }
    let result = report.result
    if options.json {        let data = try JSONSerialization.data(withJSONObject: syncObject(report), options: [.sortedKeys])
        Terminal.standardOutput.json(String(decoding: data, as: UTF8.self))
    } else {
        for warning in report.warnings { printError("capforge sync: warning: \(Format.terminalSafe(warning))") }
        let heard = report.language.map { ", speech in \($0.name)" } ?? ""
        let basis = (result.evidence == .words ? "\(result.matched) of \(report.cues) cues matched by their words" : "by where speech is") + heard
        printLine("\(Format.terminalSafe(report.output.path)): \(report.cues - report.unplacedCues.count) of \(report.cues) cues re-timed (\(basis))")
        printLine("  map: \(result.map.description)")
    }
    return ExitCode.success
}

/// `caption PATH... --sync`: every video's own subtitle files re-timed to it (`SyncBatch`).
func runFolderSync(_ options: CaptionOptions, inputs: [BatchInput], problems: [ScanProblem], settings: BatchSettings) throws -> Int32 {
    // What captioning would write has no place in a run that writes no captions.
    let defaults = CaptionOptions()
    let captioning = [("burn", options.burn), ("mux", settings.mux), ("transcript", options.transcriptFile != nil), ("transcript-beside", options.transcriptBeside),
                      ("translate", settings.translate), ("out", options.out != nil), ("formats", options.settings.formats != defaults.settings.formats),
                      ("shard", options.shard != nil)]
    if let (option, _) = captioning.first(where: \.1) {
        throw UsageError.invalidValue(option: "sync", value: "", reason: "--\(option) is for captioning; --sync writes each re-timed file beside the one it re-times")
    }
    let pairs = SyncBatch.pairs(for: inputs)
    let lonely = pairs.filter(\.subtitles.isEmpty).map(\.input.relativePath)
    if options.dryRun {
        for pair in pairs where !pair.subtitles.isEmpty {
            printLine("\(Format.terminalSafe(pair.input.relativePath)): \(pair.subtitles.map { Format.terminalSafe($0.lastPathComponent) }.joined(separator: ", "))")
        }
        if !lonely.isEmpty { printLine("warning: \(lonely.count) file(s) have no subtitle files named after them beside them") }
        return problems.isEmpty ? ExitCode.success : ExitCode.failure
    }
    // The review page may take the place of no input, subtitle file or re-timed copy.
    let report = options.report.map { URL(fileURLWithPath: $0) }
    let touched = pairs.flatMap { [$0.input.url.path] + $0.subtitles.flatMap { [$0.path, SyncBatch.output(for: $0).path] } }
    let reportPolicy = report.map { OutputPolicy.named($0, overwrite: options.overwrite).writing(.report).protecting(touched) }
    if let report, let reportPolicy {
        if touched.contains(OutputPolicy.resolvedPath(report).path) || touched.contains(report.standardizedFileURL.path) {
            throw UsageError.invalidValue(option: "report", value: Format.terminalSafe(report.relativePath), reason: "this run reads or writes that file; name a file of its own, such as review.html")
        }
        _ = try reportPolicy.destination(for: report)
    }
    let engines = try loadEngines(options.models, verbose: options.verbose, settings: settings)
    let cancellation = Cancellation()
    Interrupts.install(cancellation)
    let json = options.json, quiet = options.quiet
    let asked: Language? = if case .fixed(let language) = settings.language { language } else { nil }
    let outcomes: [SyncBatch.Outcome]
    do {
        outcomes = try SyncBatch(job: SubtitleSyncJob(engines: engines, tier: settings.tier)).run(
            pairs, language: asked, force: options.force, overwrite: options.overwrite, cancellation: cancellation,
            progress: { input, stage in if !json && !quiet { printError("capforge: \(Format.terminalSafe(input.relativePath)): \(stage)") } },
            finished: { outcome in
                if json { Terminal.standardOutput.json(syncJSON(outcome)) } else if !quiet || outcome.status == .failed { printLine(TerminalText(lines: syncLine(outcome))) }
            })
    } catch is Cancelled {
        printError("capforge: interrupted; the files re-timed so far are written, the one in progress is not")
        return Interrupts.exitCode
    }
    for problem in problems { printError("capforge: \(Format.terminalSafe(problem.description))") }
    if !json {
        let count = { (status: SyncBatch.Outcome.Status) in outcomes.filter { $0.status == status }.count }
        printLine("\n\(count(.done)) subtitle file(s) re-timed, \(count(.skipped)) skipped (current), \(count(.failed)) failed, for \(pairs.count - lonely.count) of \(pairs.count) file(s)")
        if !lonely.isEmpty {
            let named = lonely.prefix(10).map(Format.terminalSafe).joined(separator: ", ") + (lonely.count > 10 ? ", …" : "")
            printLine("warning: \(lonely.count) file(s) have no subtitle files named after them beside them (NAME.srt, NAME.LANG.srt, .vtt, .ass): \(named)")
        }
    }
    if let report, let reportPolicy {
        let warnings = lonely.isEmpty ? [] : ["\(lonely.count) file(s) have no subtitle files named after them beside them"]
        try AtomicFile.write(HTMLReport.render(SyncBatch.reviewResults(outcomes) + problems.map(\.failedResult), warnings: warnings,
                                               folder: report.standardizedFileURL.deletingLastPathComponent()), to: report, policy: reportPolicy)
    }
    return outcomes.contains { $0.status == .failed } || !problems.isEmpty ? ExitCode.failure : ExitCode.success
}

/// A re-timed file's lines: the map and every warning.
private func syncLine(_ outcome: SyncBatch.Outcome) -> String {
    let name = Format.terminalSafe(outcome.subtitles.lastPathComponent)
    switch outcome.status {
    case .skipped: return "\(name): current (\(Format.terminalSafe(outcome.output.lastPathComponent)) is newer than it and its video)"
    case .failed: return "\(name): FAILED: \(Format.terminalSafe(outcome.error ?? "unknown error"))"
    case .done:
        let report = outcome.report!
        let basis = report.result.evidence == .words ? "\(report.result.matched) of \(report.cues) cues matched by their words" : "by where speech is"
        return (["\(name) → \(Format.terminalSafe(outcome.output.lastPathComponent)): \(report.cues - report.unplacedCues.count) of \(report.cues) cues re-timed (\(basis))",
                 "  map: \(report.result.map.description)"] + report.warnings.map { "  warning: \(Format.terminalSafe($0))" }).joined(separator: "\n")
    }
}

private func syncJSON(_ outcome: SyncBatch.Outcome) -> String {
    var object: [String: Any] = ["event": "synced", "input": outcome.input.url.path, "subtitles": outcome.subtitles.path, "output": outcome.output.path,
                                 "status": outcome.status.rawValue]
    if let error = outcome.error { object["error"] = error }
    if let report = outcome.report { object.merge(syncObject(report)) { $1 } }
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
}

/// The JSON of one re-timed file: the map, what it rests on, what was left out.
func syncObject(_ report: SyncReport) -> [String: Any] {
    let result = report.result
    return [
        "output": report.output.path, "cues": report.cues, "evidence": result.evidence.rawValue, "matchedCues": result.matched,
        "language": report.language?.code as Any,
        "rate": result.map.rate, "rateName": result.map.rateName as Any,
        "segments": result.map.segments.map { ["fromMilliseconds": $0.from == .min ? 0 : $0.from, "offsetMilliseconds": $0.offset] },
        "unplaced": report.unplacedCues.map { ["startMilliseconds": $0.start, "text": $0.text] },
        "warnings": report.warnings,
    ]
}
