import Arguments
import Batch
import CapforgeCore
import Captions
import Foundation
import Media
import Speech

let syncCommand = Subcommand(
    spec: Command(
        "sync", summary: "Re-time a subtitle file to a copy of its video: offset, frame-rate drift and cuts found from the speech; only times change.",
        usage: "VIDEO SUBS [--out OUT] [OPTIONS]",
        options: [
            Option("out", short: "o", value: "OUT", help: "the re-timed subtitles (default <subs name>.synced.<ext> beside SUBS)"),
            Option("lang", value: "CODE", help: "the speech's language (default: the one the subtitle file's name says, talk.fr.srt, else the audio's tag, else detected)"),
            Option("tier", value: .choice(TierPreference.allCases.map(\.rawValue)), default: BatchSettings().tier.rawValue,
                   help: "modern matches the cues' words to recognised words; basic times by where speech is"),
            Option("model", value: "NAME|PATH", help: "the Whisper model to hear the speech with"),
            Option("json", help: "print the result as one JSON object"),
            overwriteOption,
            Option("verbose", short: "v", help: "show library warnings"),
        ],
        positionals: 2...2)
) { args in
    let video = URL(fileURLWithPath: args.positionals[0]).standardizedFileURL
    let subtitles = URL(fileURLWithPath: args.positionals[1]).standardizedFileURL
    let named = Language(subtitles.deletingPathExtension().pathExtension)
    let language = try languageOption(args) ?? named
    let output = args.value("out").map { URL(fileURLWithPath: $0).standardizedFileURL }
        ?? subtitles.deletingPathExtension().appendingPathExtension("synced").appendingPathExtension(subtitles.pathExtension)
    let policy = namedOutputPolicy(output, args: args).writing(.captions).protecting([video.path, subtitles.path])
    var settings = BatchSettings()
    if let tier: TierPreference = args.choice("tier") { settings.tier = tier }
    let engines = try loadEngines(args, settings: settings)
    let cancellation = Cancellation()
    Interrupts.install(cancellation)
    let report: SyncReport
    do {
        report = try SubtitleSyncJob(engines: engines, tier: settings.tier).run(
            video: video, subtitles: subtitles, output: output, language: language, policy: policy, cancellation: cancellation) { stage in
            if !args.flag("json") { printError("capforge sync: \(stage)") }
        }
    } catch is Cancelled {
        printError("capforge sync: interrupted; \(Format.terminalSafe(output.path)) was not written")
        return Interrupts.exitCode
    }
    let result = report.result
    if args.flag("json") {
        let object: [String: Any] = [
            "output": report.output.path, "cues": report.cues, "evidence": result.evidence.rawValue, "matchedCues": result.matched,
            "language": report.language?.code as Any,
            "rate": result.map.rate, "rateName": result.map.rateName as Any,
            "segments": result.map.segments.map { ["fromMilliseconds": $0.from == .min ? 0 : $0.from, "offsetMilliseconds": $0.offset] },
            "unplaced": report.unplacedCues.map { ["startMilliseconds": $0.start, "text": $0.text] },
            "warnings": report.warnings,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    } else {
        for warning in report.warnings { printError("capforge sync: warning: \(Format.terminalSafe(warning))") }
        let heard = report.language.map { ", speech in \($0.name)" } ?? ""
        let basis = (result.evidence == .words ? "\(result.matched) of \(report.cues) cues matched by their words" : "by where speech is") + heard
        print("\(Format.terminalSafe(report.output.path)): \(report.cues - report.unplacedCues.count) of \(report.cues) cues re-timed (\(basis))")
        print("  map: \(result.map.description)")
    }
    return ExitCode.success
}
