@testable import Batch
import CapforgeCore
import Captions
import Foundation
import Testing

/// The review page (`--report`) of a real run: a player per file pointing at the input, the
/// cue list with the captions' text, a timeline with an axis and the warnings at their moment,
/// every warning of the run, links to every output, and the batch totals.
@Suite(.serialized, .timeLimit(.minutes(30)))
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
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
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

    /// Runs `Scripts/check-report` on a page: its exit status and what it said.
    static func checkReport(_ page: URL) throws -> (status: Int32, said: String) {
        let process = Process()
        process.executableURL = CLI.repo.appendingPathComponent("Scripts/check-report")
        process.arguments = [page.path, page.deletingPathExtension().appendingPathExtension("png").path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, said)
    }

    /// Headless Chromium builds the page: captions on every player, cue text, an axis, no console errors.
    @Test(.enabled(if: chromium, "needs Debian's chromium")) func chromiumShowsThePageWithoutErrors() throws {
        let (_, folder, _) = try reviewedBatch()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let (status, said) = try Self.checkReport(folder.appendingPathComponent("report.html"))
        #expect(status == 0, "\(said)")
        #expect(said.contains("3 player(s) with their captions"))
    }

    /// Names a hostile folder holds, as paths below the batch's root: each becomes an input
    /// (librivox-0880, 3 s) whose player, outputs and name are on the page.
    static let hostileNames = [
        "javascript:alert(6)/inner.mkv",
        "data:text/html,<script>alert(1)</script>.mkv",
        "q\"uote's <b>&amp; #frag ?query %41 sp ace.mkv",
        "new\nline.mkv",
        "-leading.mkv",
        "café ☃ 日本語 \u{202E}vkm.mkv",
        "\\\\evil.example/back.mkv",
        "%2F%2Fevil.example.mkv",
        "vbscript:x/deep/er.mkv",
    ]

    /// A real run over files and folders with hostile names, the page beside them: every URL
    /// on it (links, players) is a file here that exists, no click leaves the page or opens a
    /// dialog, and each name reads as itself (control and direction characters shown escaped).
    @Test(.enabled(if: chromium, "needs Debian's chromium")) func hostileNamesStayFilesOnThisMachine() throws {
        let folder = try scratchFolder("review-hostile")
        defer { try? FileManager.default.removeItem(at: folder) }
        let media = folder.appendingPathComponent("media")
        for name in Self.hostileNames {
            let url = media.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try copyFixture("librivox-0880.mkv", to: url.deletingLastPathComponent(), as: url.lastPathComponent)
        }
        // Beside the inputs, so that each link's first part is a hostile name.
        let report = media.appendingPathComponent("report.html")
        let run = try CLI().run(["caption", media.path, "--formats", "srt,vtt", "--model", CLI.models.appendingPathComponent("ggml-tiny.en.bin").path,
                                 "--report", report.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.events("file-done").count == Self.hostileNames.count)
        let page = try String(contentsOf: report, encoding: .utf8)
        for name in Self.hostileNames {
            #expect(Self.unescaped(page).contains("<h2>\(Format.terminalSafe(name))"), "\(name)")
        }
        // Every URL is a relative path that cannot carry a scheme.
        let urls = Self.matches(##"(?:href|src)="([^"#][^"]*)""##, in: page).map { $0[1] }
        #expect(urls.count == Self.hostileNames.count * 3)
        for url in urls { #expect(url.hasPrefix("./") && !url.contains(":"), "\(url)") }
        let (status, said) = try Self.checkReport(report)
        #expect(status == 0, "\(said)")
        #expect(said.contains("\(Self.hostileNames.count) player(s) with their captions"), "\(said)")
    }

    /// Text from a transcript, an error or a name that reads as markup stays text: in the cue
    /// list, in the captions the script puts on the player, in titles and attributes; and
    /// without a folder to link from, every URL is a file:// URL of the file itself.
    @Test(.enabled(if: chromium, "needs Debian's chromium")) func hostileTextStaysTextAndFileURLsStayFileURLs() throws {
        let folder = try scratchFolder("review-text")
        defer { try? FileManager.default.removeItem(at: folder) }
        let hostile = "javascript:alert(1)//<img src=x onerror=alert(2)>\"' onmouseover='alert(3)' <b>&amp;</b> #?%"
        let video = folder.appendingPathComponent(hostile.replacingOccurrences(of: "/", with: "|") + ".mkv")
        let srt = folder.appendingPathComponent("javascript:alert(4).en.srt")
        try FileManager.default.copyItem(at: CLI.fixtures.appendingPathComponent("librivox-0880.mkv"), to: video)
        try "1\n00:00:00,000 --> 00:00:01,000\nx\n".write(to: srt, atomically: true, encoding: .utf8)
        var result = FileResult(relativePath: hostile, path: video.path, status: .done, seconds: 1)
        result.duration = 3
        result.language = Language("en")
        result.outputs = [srt.path]
        result.warnings = ["warning \(hostile)"]
        result.cueMarks = [
            .init(start: 0.2, end: 1.5, tier: .modern, score: 0.9,
                  lines: [[MarkedText(text: "<c.x>a</c> & <b>bold</b> ", marked: false), MarkedText(text: "<script>alert(5)</script>", marked: true)],
                          [MarkedText(text: "it's \"quoted\" -->", marked: false)]]),
        ]
        result.marks = [.init(start: 1, end: 2, kind: .dropped, text: hostile)]
        let page = HTMLReport.render([result], warnings: [hostile])
        for url in Self.matches(##"(?:href|src)="([^"#][^"]*)""##, in: page).map({ $0[1] }) {
            #expect(url.hasPrefix("file:///"), "\(url)")
        }
        let report = folder.appendingPathComponent("report.html")
        try page.write(to: report, atomically: true, encoding: .utf8)
        let (status, said) = try Self.checkReport(report)
        #expect(status == 0, "\(said)")
        #expect(said.contains("1 player(s) with their captions"), "\(said)")
    }
}
