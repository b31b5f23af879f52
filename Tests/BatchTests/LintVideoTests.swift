import Foundation
import Testing

/// `capforge lint` with the video known: its frame rate and duration, found beside the file.
@Suite struct LintVideoTests {
    @Test func capforgesOwnCaptionsPassWithTheVideoAt24And25And30Fps() throws {
        let folder = try scratchFolder("lint-video")
        defer { try? FileManager.default.removeItem(at: folder) }
        let videos = ["dual-language.mkv": "24", "pcm-audio.mov": "25", "startoffset.mp4": "30"]
        for name in videos.keys { try copyFixture(name, to: folder) }
        let cli = CLI()
        let caption = try cli.run(["caption", folder.path, "--formats", "srt,vtt,ass", "--model", "tiny.en"])
        #expect(caption.status == 0, "\(caption.stderr)")
        for (video, fps) in videos {
            let stem = URL(fileURLWithPath: video).deletingPathExtension().lastPathComponent
            for format in ["srt", "vtt", "ass"] {
                let file = folder.appendingPathComponent("\(stem).en.\(format)").path
                let lint = try cli.run(["lint", file])
                #expect(lint.status == 0, "\(file): \(lint.stdout)")
                #expect(lint.stdout.contains("at \(fps) fps (video \(video), "), "\(lint.stdout)")
            }
        }
    }

    /// Speech running to the cut: the last cue ends with the media, never after it, and what the
    /// JSON counts is what lint finds (issue 45: lint said beyond-video where the JSON said 0).
    @Test func captionsOfSpeechCutOffEndWithTheMediaAndLintAgreesWithTheJSON() throws {
        let folder = try scratchFolder("lint-cut")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("cut.mp4")
        // librivox.mp4's first sentence runs from 1.0 s to 8.1 s: cut at 5 s, mid-sentence.
        try #require(try runTool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", CLI.fixtures.appendingPathComponent("librivox.mp4").path,
                                                     "-t", "5", "-c:v", "libx264", "-c:a", "aac", clip.path]) == 0)
        let cli = CLI()
        let caption = try cli.run(["caption", folder.path, "--formats", "srt,json", "--model", "tiny.en", "--lang", "en"])
        #expect(caption.status == 0, "\(caption.stderr)")
        let lint = try cli.run(["lint", folder.appendingPathComponent("cut.en.srt").path, "--video", clip.path, "--list", "0"])
        #expect(!lint.stdout.contains("beyond-video"), "\(lint.stdout)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("cut.en.json"))) as! [String: Any]
        let counted = ((json["quality"] as! [String: Any])["violations"] as! [String: Int]).filter { $0.value > 0 }
        var linted: [String: Int] = [:]
        for line in lint.stdout.split(separator: "\n") where line.hasPrefix("  cue ") {
            let rule = line.split(separator: " ").first { $0.hasSuffix(":") && !$0.contains("-->") && $0.contains("-") }
            if let rule { linted[String(rule.dropLast()), default: 0] += 1 }
        }
        #expect(counted == linted, "JSON \(counted), lint \(lint.stdout)")
        let cues = try String(contentsOf: folder.appendingPathComponent("cut.en.srt"), encoding: .utf8)
        #expect(cues.contains("dashwood") || cues.contains("Dashwood"), "speech up to the cut is captioned: \(cues)")
    }

    @Test func aCueAfterTheVideoEndsIsAViolationAndAnExplicitRateWins() throws {
        let folder = try scratchFolder("lint-beyond")
        defer { try? FileManager.default.removeItem(at: folder) }
        try copyFixture("startoffset.mp4", to: folder, as: "clip.mp4")
        let subtitles = folder.appendingPathComponent("clip.en.srt")
        try "1\n00:00:01,000 --> 00:00:02,500\nHello there.\n\n2\n00:10:00,000 --> 00:10:02,000\nLong after the end.\n".write(to: subtitles, atomically: true, encoding: .utf8)
        let lint = try CLI().run(["lint", subtitles.path, "--fps", "25"])
        #expect(lint.status == 1)
        #expect(lint.stdout.contains("at 25 fps (video clip.mp4, ") && lint.stdout.contains("cue 2 ") && lint.stdout.contains("beyond-video: ends "), "\(lint.stdout)")
        #expect(!lint.stdout.contains("cue 1 "), "\(lint.stdout)")
        // Two videos of that name: which one is meant is not guessed.
        try copyFixture("startoffset.mp4", to: folder, as: "clip.mkv")
        let unsure = try CLI().run(["lint", subtitles.path])
        #expect(unsure.status == 0 && unsure.stdout.contains("(no video given or found beside it)"), "\(unsure.stdout)")
        let named = try CLI().run(["lint", subtitles.path, "--video", folder.appendingPathComponent("clip.mkv").path])
        #expect(named.status == 1 && named.stdout.contains("(video clip.mkv, "), "\(named.stdout)")
    }
}
