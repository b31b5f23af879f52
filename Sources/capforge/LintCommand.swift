import Arguments
import Batch
import Captions
import Foundation
import Media

let lintCommand = Subcommand(
    spec: Command(
        "lint", summary: "Check SRT, WebVTT, ASS, TTML or SCC files from any tool against a caption profile; exit 1 on any violation.",
        usage: "FILE... [--video VIDEO] [--profile NAME|FILE] [--fps N]",
        options: [Option("profile", value: "auto|NAME|FILE", help: "default auto: the rules for the language the file's name gives (talk.ja.srt), else netflix-en; bbc, dcmp, any built-in name, or a JSON profile file"),
                  Option("video", value: "VIDEO", help: "the video the captions are for: its frame rate, duration and shot changes (cues should start on a change, or end 2 frames before one, not 1-11 frames off; default: the video of the same name beside each file)"),
                  Option("fps", value: .number(0...Double.greatestFiniteMagnitude, name: "N", aboveLowerBound: true), need: "a positive frame rate",
                         help: "frame rate for frame-based gaps (default: the video's, else 25)"),
                  Option("list", value: .integer(0...Int.max, name: "N"), default: "\(Lint.listLimit)", need: "a count of violations, 0 for all",
                         help: "list at most N violations and N warnings per file, counting the rest; 0: all")],
        minPositionals: 1)
) { args in
    let profile = try profileOption(args)
    let fps = args.number("fps")
    let listing = args.integer("list").map { $0 == 0 ? nil : $0 } ?? Lint.listLimit
    func lintVideo(_ url: URL) throws -> LintVideo {
        let probe = try MediaProbe(path: url.path)
        // The picture's cuts, for the shot-change rule: the whole video is decoded once.
        var shots: [Double]?
        if probe.video != nil {
            printError("capforge lint: finding the shot changes in \(url.lastPathComponent)")
            shots = try ShotChangeDetector.detect(path: url.path).changes
        }
        return LintVideo(name: url.lastPathComponent, framesPerSecond: probe.video?.frameRate,
                         variableFrameRate: probe.video?.variableFrameRate ?? false, duration: probe.mediaEnd(.automatic), shotChanges: shots)
    }
    // A video given for every file is probed once; its error is each file's, as a sibling's is.
    let given = args.value("video").map { path in Result { try lintVideo(URL(fileURLWithPath: path)) } }
    var failed = false
    for path in args.positionals {
        do {
            let subtitles = URL(fileURLWithPath: path)
            let video = try given?.get() ?? InputScanner.video(besideSubtitles: subtitles).map(lintVideo)
            let report = try Lint.check(fileAt: subtitles, profile: profile, fps: fps, video: video, listing: listing)
            printLine("\(path):\n\(lines: report.formatted)")
            failed = failed || !report.passed
        } catch {
            printError("capforge lint: \(path): \(error)")
            failed = true
        }
    }
    return failed ? ExitCode.failure : ExitCode.success
}
