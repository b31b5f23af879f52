import Arguments
import Batch
import Captions
import Foundation
import Media

let lintCommand = Subcommand(
    spec: Command(
        "lint", summary: "Check SRT, WebVTT, ASS, TTML or SCC files from any tool against a caption profile; exit 1 on any violation.",
        usage: "FILE... [--video VIDEO [--shot-changes]] [--profile NAME|FILE] [--fps N]",
        options: [Option("profile", value: "auto|NAME|FILE", help: "default auto: the rules for the language the file's name gives (talk.ja.srt), else netflix-en; bbc, dcmp, any built-in name, or a JSON profile file"),
                  Option("video", value: "VIDEO", help: "the video the captions are for: its frame rate and duration (default: the video of the same name beside each file)"),
                  Option("shot-changes", help: "also check cues against the video's shot changes, as caption --shot-changes times them (a cue should start on a change, or end 2 frames before one, not 1-11 frames off); decodes the whole video"),
                  Option("fps", value: .number(FrameTiming.plausibleRates, name: "N", aboveLowerBound: false),
                         help: "frame rate for frame-based gaps (default: the video's, else 25)"),
                  Option("list", value: .integer(0...Int.max, name: "N"), default: "\(Lint.listLimit)", need: "a count of violations, 0 for all",
                         help: "list at most N violations and N warnings per file, counting the rest; 0: all")],
        minPositionals: 1)
) { args in
    let profile = try profileOption(args)
    let fps = args.number("fps")
    let listing = args.integer("list").map { $0 == 0 ? nil : $0 } ?? Lint.listLimit
    // Only when asked, as caption times cues to the cuts only when asked: default captions pass
    // default lint, and neither decodes a whole video unasked.
    let checksShots = args.flag("shot-changes")
    func lintVideo(_ url: URL) throws -> LintVideo {
        let probe = try MediaProbe(path: url.path)
        var shots: [Double]?
        if checksShots, probe.video != nil {
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
