import Arguments
import Batch
import Captions
import Foundation
import Media

struct LintOptions: CommandOptions {
    var profile: CaptionProfile?
    var video: String?
    var shotChanges = false
    var fps: Double?
    /// nil: every violation.
    var listing: Int? = Lint.listLimit
}

let lintCommand = Subcommand(
    "lint", summary: "Check SRT, WebVTT, ASS, TTML or SCC files from any tool against a caption profile; exit 1 on any violation.",
    usage: "FILE... [--video VIDEO [--shot-changes]] [--profile NAME|FILE] [--fps N]",
    options: OptionTable(initial: LintOptions(), [
        .parsed("profile", \.profile, value: "auto|NAME|FILE", help: "default auto: the rules for the language the file's name gives (talk.ja.srt), else netflix-en; bbc, dcmp, any built-in name, or a JSON profile file",
                parse: profileChoice),
        .text("video", \.video, value: "VIDEO", help: "the video the captions are for: its frame rate and duration (default: the video of the same name beside each file)"),
        .flag("shot-changes", \.shotChanges, help: "also check cues against the video's shot changes, as caption --shot-changes times them (a cue should start on a change, or end 2 frames before one, not 1-11 frames off); decodes the whole video"),
        .number("fps", \.fps, FrameTiming.plausibleRates, value: "N", help: "frame rate for frame-based gaps (default: the video's, else 25)"),
        OptionTable<LintOptions>.Field(Option("list", value: .integer(0...Int.max, name: "N"), need: "a count of violations, 0 for all",
                                              help: "list at most N violations and N warnings per file, counting the rest; 0: all"),
                                       shownDefault: { "\($0.listing ?? 0)" }) { options, text in
            options.listing = Int(text) == 0 ? nil : Int(text)
        },
    ]),
    positionals: 1...Int.max
) { options, paths in
    // Only when asked, as caption times cues to the cuts only when asked: default captions pass
    // default lint, and neither decodes a whole video unasked.
    let checksShots = options.shotChanges
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
    let given = options.video.map { path in Result { try lintVideo(URL(fileURLWithPath: path)) } }
    var failed = false
    for path in paths {
        do {
            let subtitles = URL(fileURLWithPath: path)
            let video = try given?.get() ?? InputScanner.video(besideSubtitles: subtitles).map(lintVideo)
            let report = try Lint.check(fileAt: subtitles, profile: options.profile, fps: options.fps, video: video, listing: options.listing)
            printLine("\(path):\n\(lines: report.formatted)")
            failed = failed || !report.passed
        } catch {
            printError("capforge lint: \(path): \(error)")
            failed = true
        }
    }
    return failed ? ExitCode.failure : ExitCode.success
}
