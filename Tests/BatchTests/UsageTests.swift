import Foundation
import Testing

/// What a newcomer types first: the top-level help, and options that name nothing usable.
@Suite struct UsageTests {
    let cli = CLI()

    @Test func topLevelHelpListsVersion() throws {
        let help = try cli.run(["--help"])
        #expect(help.status == 0 && help.stdout.contains("-V, --version"), "\(help.stdout)")
        let version = try cli.run(["--version"])
        let first = try #require(version.stdout.split(separator: "\n").first)
        #expect(version.status == 0 && help.stdout.contains(first), "help names the version '\(first)'")
    }

    /// An option naming no profile, style or model is a usage error (exit 2) in every command, as
    /// an unknown option is: lint exited 1, its code for violations, on an unknown --profile.
    @Test func anOptionNamingNothingUsableIsAUsageErrorEverywhere() throws {
        let folder = try scratchFolder("usage")
        defer { try? FileManager.default.removeItem(at: folder) }
        let srt = folder.appendingPathComponent("talk.srt")
        try "1\n00:00:01,000 --> 00:00:03,000\nHello there.\n".write(to: srt, atomically: true, encoding: .utf8)
        let video = CLI.fixtures.appendingPathComponent("librivox.mp4").path
        let cases: [(arguments: [String], option: String)] = [
            (["lint", srt.path, "--profile", "bogus"], "profile"),
            (["lint", srt.path, "--profile", folder.appendingPathComponent("none.json").path], "profile"),
            (["caption", video, "--dry-run", "--profile", "bogus"], "profile"),
            (["caption", video, "--dry-run", "--style", "bogus"], "style"),
            (["caption", video, "--dry-run", "--model", "bogus"], "model"),
            (["caption", video, "--dry-run", "--cross-check", "bogus"], "cross-check"),
            (["burn", video, "--subs", srt.path, "--style", "bogus", "-o", folder.appendingPathComponent("out.mp4").path], "style"),
        ]
        for (arguments, option) in cases {
            let result = try cli.run(arguments)
            #expect(result.status == 2 && result.stderr.contains("'--\(option)'") && result.stderr.contains("--help"),
                    "capforge \(arguments.joined(separator: " ")): exit \(result.status): \(result.stderr)")
        }
        #expect(try cli.run(["lint", srt.path, "--profile", "bbc"]).status != 2, "a known profile is no usage error")
    }
}
