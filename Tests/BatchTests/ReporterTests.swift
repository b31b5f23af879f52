import CapforgeCore
import Foundation
@testable import Speech
import Testing
@testable import Batch

/// What the reporters say when a file's tier is resolved: the language, the tier and the model.
@Suite struct ReporterTests {
    @Test func theTierLineNamesTheModelThatWillTranscribe() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-reporter-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        let input = BatchInput(url: URL(fileURLWithPath: "/v/talk.mp4"), root: URL(fileURLWithPath: "/v"), relativePath: "talk.mp4")
        let reporter = PlainReporter(output: handle)
        let english = try #require(Language("en")), korean = try #require(Language("ko"))
        reporter.handle(.tierResolved(input: input, source: .streamTag, plan: TierPlan(language: english, mode: .modern, basicFallback: true),
                                      model: "tiny.en, cross-checked by base"))
        reporter.handle(.tierResolved(input: input, source: .detected, plan: TierPlan(language: korean, mode: .basic, basicFallback: false), model: nil))
        try handle.close()
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines == ["  talk.mp4: language en (stream-tag), tier modern (tiny.en, cross-checked by base)",
                          "  talk.mp4: language ko (detected), tier basic"])
    }

    @Test func theReportCarriesWhatLimitedTheWholeRun() {
        let html = HTMLReport.render([], warnings: ["the libwhisper library is not available: <libwhisper.so.1>"])
        #expect(html.contains("<p class=\"warn\">warning: the libwhisper library is not available: &lt;libwhisper.so.1&gt;</p>"))
        #expect(!HTMLReport.render([]).contains("warning:"))
    }

    /// In text mode a file that takes chunks from an interrupted run's journal says so: from
    /// which chunk it went on, or that every chunk came from the journal.
    @Test func aResumedFileSaysFromWhichChunkItWentOn() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-reporter-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        let reporter = PlainReporter(output: handle)
        func file(_ name: String, index: Int, resumed: [Bool]) {
            let input = BatchInput(url: URL(fileURLWithPath: "/v/\(name)"), root: URL(fileURLWithPath: "/v"), relativePath: name)
            reporter.handle(.fileStarted(index: index, total: 3, input: input, duration: 60))
            for (i, fromJournal) in resumed.enumerated() {
                let record = ChunkRecord(start: Double(i) * 20, end: Double(i + 1) * 20, outcome: .recognised, tier: .modern, engine: "whisper")
                reporter.handle(.chunk(input: input, progress: ChunkProgress(
                    chunk: i, chunkCount: resumed.count, fraction: Double(i + 1) / Double(resumed.count), record: record,
                    verdicts: [], wordsSoFar: 10 * (i + 1), resumed: fromJournal)))
            }
            reporter.handle(.fileFinished(index: index, result: FileResult(relativePath: name, path: input.url.path, status: .done)))
        }
        file("a.mp4", index: 0, resumed: [true, true, false, false])
        file("b.mp4", index: 1, resumed: [true, true])
        file("c.mp4", index: 2, resumed: [false, false])
        try handle.close()
        let text = try String(contentsOf: log, encoding: .utf8)
        let notes = text.split(separator: "\n").filter { $0.contains("resumed") }.map(String.init)
        #expect(notes == ["  resumed from chunk 3/4: 2 chunk(s) came from the journal of an interrupted run",
                          "  resumed: all 2 chunk(s) came from the journal of an interrupted run"], "\(text)")
    }

    /// An interrupted run's summary says what did not finish, and its time is the run's.
    @Test func anInterruptedSummaryListsWhatDidNotFinish() {
        let none = Summary.table([], interrupted: true, seconds: 12.34, unfinished: ["talks/a.mp4", "talks/b.mp4"])
        #expect(none.contains("no file finished before the interruption"))
        #expect(!none.contains("duration"), "no empty table")
        #expect(none.contains("not finished: 2 file(s): talks/a.mp4, talks/b.mp4"))
        #expect(none.contains("0 captioned, 0 skipped (current), 0 failed in 12.3 s; interrupted: rerun the same command to resume"))
        var done = FileResult(relativePath: "talks/0.mp4", path: "/v/talks/0.mp4", status: .done)
        done.seconds = 3
        let some = Summary.table([done], interrupted: true, seconds: 9, unfinished: (1...12).map { "talks/\($0).mp4" })
        #expect(some.contains("talks/0.mp4") && some.contains("1 captioned"))
        #expect(some.contains("not finished: 12 file(s): talks/1.mp4, talks/2.mp4") && some.contains("talks/10.mp4, …"))
        #expect(!Summary.table([done], interrupted: false, seconds: 3).contains("not finished"))
    }

    /// The review page said "2.01× (0× faster than real time)" for a run slower than real time.
    @Test func theRealTimeFactorSaysWhichWayRound() {
        #expect(Format.realTimeFactor(taken: 26, media: 12.92) == "2.01× the media's length (slower than real time)")
        #expect(Format.realTimeFactor(taken: 10, media: 40) == "0.25× the media's length (4.0× faster than real time)")
        #expect(Format.realTimeFactor(taken: 3, media: 600) == "0.005× the media's length (200× faster than real time)")
        #expect(Format.realTimeFactor(taken: 30, media: 30) == "1.00× the media's length (real time)")
        #expect(Format.realTimeFactor(taken: 3, media: 0) == "-")
        var result = FileResult(relativePath: "a.mp4", path: "/a.mp4", status: .done, seconds: 26)
        result.duration = 12.92
        #expect(HTMLReport.render([result]).contains("2.01× the media&#39;s length (slower than real time)"))
    }
}
