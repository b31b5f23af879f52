import Arguments
import Batch
import Burn
import CapforgeCore
import Captions
import Foundation
import Media

let muxCommand = Subcommand(
    spec: Command(
        "mux", summary: "Add subtitle files to a copy of a video as tracks players can switch on (every stream copied as it is).",
        usage: "VIDEO [SUBS...] [--out OUT] [--lang CODE] [OPTIONS]",
        options: [
            Option("out", short: "o", value: "OUT", help: "output video (default <name>.subtitled.mp4 for MP4/MOV input, .mkv otherwise)"),
            Option("lang", value: "CODE", help: "language of subtitle files whose name does not say (talk.fr.srt says fr)"),
            Option("title", value: "TEXT", help: "track title for every file given (default: the language, and how Capforge made the captions)"),
            overwriteOption,
            Option("verbose", short: "v", help: "show library warnings"),
        ],
        positionals: 1...64)
) { args in
    let video = URL(fileURLWithPath: args.positionals[0]).standardizedFileURL
    let probe = try MediaProbe(path: video.path)
    let given = args.positionals.dropFirst().map { URL(fileURLWithPath: $0).standardizedFileURL }
    // Without files named, the captions Capforge wrote beside the video, one track per language.
    let files = given.isEmpty ? CaptionFiles.written(for: video).compactMap(\.files.first) : given
    guard !files.isEmpty else {
        throw UsageError.invalidValue(option: "SUBS", value: "(none)", reason: "no captions found beside \(video.lastPathComponent): run 'capforge caption' first or name the files")
    }
    let fallbackLanguage = try args.value("lang").map { code -> Language in
        guard let language = Language(code) else { throw UsageError.invalidValue(option: "lang", value: code, reason: "not a language code Capforge knows") }
        return language
    }
    let tracks = try files.map { try CaptionFiles.track(from: $0, language: fallbackLanguage, title: args.value("title")) }
    let output = args.value("out").map { URL(fileURLWithPath: $0).standardizedFileURL }
        ?? OutputLayout.subtitled(video, extension: SubtitleMux.outputExtension(for: video, container: probe.container))
    let policy = namedOutputPolicy(output, args: args).protecting([video.path] + files.map(\.path))
    let cancellation = Cancellation()
    Interrupts.install(cancellation)
    let report: MuxReport
    do {
        report = try SubtitleMux(input: video.path, output: output.path, tracks: tracks, outputPolicy: policy).run(cancellation: cancellation)
    } catch is Cancelled {
        printError("capforge mux: interrupted; \(output.path) was not written")
        return Interrupts.exitCode
    }
    for warning in report.warnings { printError("capforge mux: warning: \(warning)") }
    print("\(report.outputPath): \(report.added.count) subtitle track(s) written")
    for track in report.added {
        print("  subtitles: \(track.codec), \(track.languageTag ?? "no language"), \"\(track.title)\"")
    }
    return ExitCode.success
}
