import CapforgeCore
import Captions
import Foundation
import Testing

/// The review page (`--report`) of a real run: a player per file pointing at the input, the
/// cue list with the captions' text, a timeline with an axis and the warnings at their moment,
/// every warning of the run, links to every output, and the batch totals.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct ReviewPageTests {
    static let chromium = FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")

    /// Runs a batch with a report and gives the page, its folder and the run's JSON events.
    func reviewedBatch() throws -> (page: String, folder: URL, run: CLI.Result) {
        let folder = try scratchFolder("review")
        let media = folder.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        try copyFixture("librivox.mp4", to: media)
        try copyFixture("tones-noise.mkv", to: media)
        try FileManager.default.copyItem(at: CLI.fixtures.appendingPathComponent("bad/truncated.mkv"), to: media.appendingPathComponent("cut.mkv"))
        let report = folder.appendingPathComponent("review/report.html")
        try FileManager.default.createDirectory(at: report.deletingLastPathComponent(), withIntermediateDirectories: true)
        let run = try CLI().run(["caption", media.path, "--out", folder.appendingPathComponent("captions").path, "--formats", "srt,vtt",
                                 "--model", CLI.models.appendingPathComponent("ggml-tiny.en.bin").path, "--report", report.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        return (try String(contentsOf: report, encoding: .utf8), report.deletingLastPathComponent(), run)
    }

    static func matches(_ pattern: String, in text: String) -> [[String]] {
        let regex = try! NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (0..<match.numberOfRanges).map { Range(match.range(at: $0), in: text).map { String(text[$0]) } ?? "" }
        }
    }

    static func unescaped(_ html: String) -> String {
        html.replacingOccurrences(of: "<br>", with: "\n").replacingOccurrences(of: "<mark>", with: "").replacingOccurrences(of: "</mark>", with: "")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test func thePageHoldsPlayersCueTextTimelinesWarningsAndOutputs() throws {
        let (page, folder, run) = try reviewedBatch()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }

        // A player per file, its source the input reached relative to the page.
        let players = Self.matches(#"<video controls preload="metadata" src="([^"]+)" data-cues="([^"]+)""#, in: page)
        #expect(players.count == 3)
        for player in players {
            let source = folder.appendingPathComponent(player[1].removingPercentEncoding!).standardizedFileURL
            #expect(FileManager.default.fileExists(atPath: source.path), "\(player[1])")
        }

        // Each cue list holds the SRT's cues, text and all.
        let srt = try SubtitleReader.read(fileAt: folder.deletingLastPathComponent().appendingPathComponent("captions/librivox.en.srt"))
        let librivox = try #require(players.first { $0[1].hasSuffix("librivox.mp4") })
        let list = try #require(Self.matches(#"<ol class="cues" id="\#(librivox[2])">(.*?)</ol>"#, in: page).first)[1]
        let texts = Self.matches(#"<span class="text">(.*?)</span></li>"#, in: list).map { Self.unescaped($0[1]) }
        #expect(texts == srt.cues.map { $0.lines.joined(separator: "\n") })
        #expect(list.contains("<mark>") == page.contains("low confidence:"), "marked words are marked in the text and on the timeline")

        // Timelines with an axis; a warning's moment pinned (where the cut-off file ends).
        #expect(Self.matches(#"<svg class="timeline""#, in: page).count == 3)
        #expect(page.contains("<text class=\"tick\""))
        #expect(!Self.matches(##"<path d="M[0-9.]+ 50[^"]*" fill="#c62828"><title>0:05\.5: file looks truncated"##, in: page).isEmpty)

        // Every warning of the run, and every output, linked relative to the page.
        let warnings = run.events("file-done").flatMap { $0["warnings"] as? [String] ?? [] }
        #expect(!warnings.isEmpty)
        for warning in warnings { #expect(Self.unescaped(page).contains(warning), "\(warning)") }
        let outputs = run.events("file-done").flatMap { $0["outputs"] as? [String] ?? [] }
        for output in outputs {
            let name = URL(fileURLWithPath: output).lastPathComponent
            let links = Self.matches(#"<a href="([^"]+)">\#(NSRegularExpression.escapedPattern(for: name))</a>"#, in: page)
            #expect(links.count == 1, "\(name)")
            #expect(links.first.map { folder.appendingPathComponent($0[1].removingPercentEncoding!).standardizedFileURL.path } == URL(fileURLWithPath: output).standardizedFileURL.path)
        }

        // Totals for the batch.
        #expect(page.contains("<li>files<b>3: 3 done, 0 skipped, 0 failed</b></li>"))
        #expect(page.contains("<li>real-time factor<b>"))
    }

    /// Headless Chromium builds the page: captions on every player, cue text, an axis, no console errors.
    @Test(.enabled(if: chromium, "needs Debian's chromium")) func chromiumShowsThePageWithoutErrors() throws {
        let (_, folder, _) = try reviewedBatch()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let process = Process()
        process.executableURL = CLI.repo.appendingPathComponent("Scripts/check-report")
        process.arguments = [folder.appendingPathComponent("report.html").path, folder.appendingPathComponent("report.png").path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(said)")
        #expect(said.contains("3 player(s) with their captions"))
    }
}
