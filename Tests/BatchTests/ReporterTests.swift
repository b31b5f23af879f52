import CapforgeCore
import Foundation
import Speech
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
        #expect(html.contains("<p class=\"basic\">warning: the libwhisper library is not available: &lt;libwhisper.so.1&gt;</p>"))
        #expect(!HTMLReport.render([]).contains("warning:"))
    }
}
