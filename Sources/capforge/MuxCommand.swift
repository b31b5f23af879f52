import Arguments
import Batch
import Burn
import CapforgeCore
import Captions
import Foundation
import Media

struct MuxOptions: CommandOptions {
    var out: String?
    var language: Language?
    var title: String?
    var overwrite = false
    var verbose = false
}

let muxCommand = Subcommand(
    "mux", summary: "Add subtitle files to a copy of a video as tracks players can switch on (every stream copied as it is).",
    usage: "VIDEO [SUBS...] [--out OUT] [--lang CODE] [OPTIONS]",
    options: OptionTable(initial: MuxOptions(), [
        .text("out", short: "o", \.out, value: "OUT", help: "output video (default <name>.subtitled.mp4 for MP4/MOV input, .mkv otherwise)"),
        .parsed("lang", \.language, value: "CODE", help: "language of subtitle files whose name does not say (talk.fr.srt says fr)", parse: languageCode),
        .parsed("title", \.title, value: "TEXT", help: "track title for every file given (default: the language, and how Capforge made the captions)") { title in
            // A title is what a player's menu shows; text it cannot show is refused, not guessed at.
            guard SubtitleTrack.menuTitle(title) == title, title.count <= maxTitleLength else {
                throw UsageError.invalidValue(option: "title", value: Format.shortened(Format.terminalSafe(title), to: 60),
                                              reason: "a track title is a name for a player's menu: at most \(maxTitleLength) characters, without control characters")
            }
            return title
        },
        .flag("overwrite", \.overwrite, help: overwriteHelp),
        .flag("verbose", short: "v", \.verbose, help: "show library warnings"),
    ]),
    positionals: 1...64
) { options, paths in
    let video = URL(fileURLWithPath: paths[0]).standardizedFileURL
    let probe = try MediaProbe(path: video.path)
    let given = paths.dropFirst().map { URL(fileURLWithPath: $0).standardizedFileURL }
    // Without files named, the captions Capforge wrote beside the video, one track per language.
    let files = given.isEmpty ? CaptionFiles.written(for: video).compactMap(\.files.first) : given
    guard !files.isEmpty else {
        throw UsageError.invalidValue(option: "SUBS", value: "(none)",
                                      reason: "no captions found beside \(Format.terminalSafe(video.lastPathComponent)): run 'capforge caption' first or name the files")
    }
    let tracks = try files.map { try CaptionFiles.track(from: $0, language: options.language, title: options.title) }
    for track in tracks {
        for warning in track.readingWarnings { printError("capforge mux: warning: \(Format.terminalSafe("\(track.source ?? track.title): \(warning)"))") }
    }
    let output = options.out.map { URL(fileURLWithPath: $0).standardizedFileURL }
        ?? OutputLayout.subtitled(video, extension: SubtitleMux.outputExtension(for: video, container: probe.container))
    let policy = OutputPolicy.named(output, overwrite: options.overwrite).writing(.video).protecting([video.path] + files.map(\.path))
    let cancellation = Cancellation()
    Interrupts.install(cancellation)
    let report: MuxReport
    do {
        var mux = SubtitleMux(input: video.path, output: output.path, tracks: tracks, outputPolicy: policy)
        mux.requiresCues = true
        report = try mux.run(cancellation: cancellation)
    } catch is Cancelled {
        printError("capforge mux: interrupted; \(Format.terminalSafe(output.path)) was not written")
        return Interrupts.exitCode
    }
    // Paths and titles come from file names, which can hold terminal escape sequences.
    for warning in report.warnings { printError("capforge mux: warning: \(Format.terminalSafe(warning.description))") }
    printLine("\(Format.terminalSafe(report.outputPath)): \(report.added.count) subtitle track(s) written")
    for track in report.added {
        printLine("  subtitles: \(track.codec), \(track.languageTag ?? "no language"), \"\(Format.terminalSafe(track.title))\"")
    }
    return ExitCode.success
}

/// Longer than any language name with notes; a file name (at most 255 bytes) always fits.
private let maxTitleLength = 256
