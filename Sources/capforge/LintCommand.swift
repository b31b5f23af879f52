import Arguments
import Captions
import Foundation

let lintCommand = Subcommand(
    spec: Command(
        "lint", summary: "Check SRT, WebVTT or ASS files from any tool against a caption profile; exit 1 on any violation.",
        usage: "FILE... [--profile NAME|FILE] [--fps N]",
        options: [Option("profile", value: "NAME|FILE", help: "netflix-en (default), bbc, dcmp, or a JSON profile file"),
                  Option("fps", value: "N", help: "video frame rate for frame-based gaps (default: 25)")],
        minPositionals: 1)
) { args in
    let profile = try Lint.profile(named: args.value("profile") ?? CaptionProfile.defaultName)
    let fps = try args.value("fps").map { text -> Double in
        guard let fps = Double(text), fps > 0 else { throw UsageError.invalidValue(option: "fps", value: text, reason: "a positive frame rate") }
        return fps
    }
    var failed = false
    for path in args.positionals {
        do {
            let report = try Lint.check(fileAt: URL(fileURLWithPath: path), profile: profile, fps: fps)
            print("\(path):\n\(report.formatted)")
            failed = failed || !report.passed
        } catch {
            printError("capforge lint: \(path): \(error)")
            failed = true
        }
    }
    return failed ? ExitCode.failure : ExitCode.success
}
