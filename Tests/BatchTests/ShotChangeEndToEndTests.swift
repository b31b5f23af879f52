import Foundation
import Testing

/// `caption --shot-changes` on speech over a picture that cuts every 2.3 s: without it, cues
/// start or end a few frames off the cuts (lint --video --shot-changes says so); with it, none does, and the
/// review page shows the cuts.
@Suite(.serialized, .timeLimit(.minutes(15))) struct ShotChangeEndToEndTests {
    @Test func cuesAreTimedToTheCuts() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-shots-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let colours = ["red", "navy", "white", "green", "black", "orange"]
        var arguments = ["-v", "error", "-nostdin"]
        for index in 0..<19 { arguments += ["-f", "lavfi", "-i", "color=c=\(colours[index % colours.count]):s=320x180:r=25:d=2.3"] }
        arguments += ["-i", CLI.fixtures.appendingPathComponent("two_cities.webm").path, "-filter_complex",
                      (0..<19).map { "[\($0):v]" }.joined() + "concat=n=19:v=1:a=0[v]", "-map", "[v]", "-map", "19:a", "-c:v", "libx264", "-c:a", "aac",
                      "-t", "43.7", folder.appendingPathComponent("cuts.mp4").path]
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        make.arguments = arguments
        try make.run()
        make.waitUntilExit()
        try #require(make.terminationStatus == 0)
        let video = folder.appendingPathComponent("cuts.mp4").path

        let plain = try CLI().run(["caption", video, "--out", folder.appendingPathComponent("plain").path, "--model", "tiny.en", "--formats", "srt"])
        try #require(plain.status == 0, "\(plain.stderr)")
        // Default captions pass default lint: the cuts are checked, as they are timed, when asked.
        let unasked = try CLI().run(["lint", folder.appendingPathComponent("plain/cuts.en.srt").path, "--video", video])
        #expect(!unasked.stdout.contains("shot-change") && !unasked.stderr.contains("finding the shot changes"), "\(unasked.stdout)")
        let before = try CLI().run(["lint", folder.appendingPathComponent("plain/cuts.en.srt").path, "--video", video, "--shot-changes"])
        #expect(before.stdout.contains("shot-change"), "the cuts fall near some cue times: \(before.stdout)")

        let timed = try CLI().run(["caption", video, "--out", folder.appendingPathComponent("timed").path, "--model", "tiny.en", "--formats", "srt",
                                   "--shot-changes", "--report", folder.appendingPathComponent("review.html").path])
        try #require(timed.status == 0, "\(timed.stderr)")
        let after = try CLI().run(["lint", folder.appendingPathComponent("timed/cuts.en.srt").path, "--video", video, "--shot-changes"])
        // A cue still off a cut is one a harder rule kept there, and the run said so.
        let off = after.stdout.components(separatedBy: "shot-change:").count - 1
        let said = timed.stdout.split(separator: "\n").filter { $0.contains("warning:") && $0.contains("shot change") && $0.contains("kept,") }.count
        #expect(off == said, "\(after.stdout)\n\(timed.stdout)")
        #expect(off < (before.stdout.components(separatedBy: "shot-change:").count - 1), "\(before.stdout)\n\(after.stdout)")
        let page = try String(contentsOf: folder.appendingPathComponent("review.html"), encoding: .utf8)
        #expect(page.components(separatedBy: "class=\"shot\"").count - 1 == 18, "the 18 cuts on the timeline")
    }
}
