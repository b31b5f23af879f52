import CapforgeCore
import Foundation
import Testing

@testable import Captions

@Suite struct LintTests {
    /// The shape of whisper.cpp's default SRT: one segment per cue, no line length limit,
    /// each cue ending exactly where the next begins.
    static let whisperShaped = """
        1
        00:00:00,000 --> 00:00:04,640
         So today I want to talk about how we built the captioning pipeline for our product.

        2
        00:00:04,640 --> 00:00:07,200
         It was hard.

        3
        00:00:07,200 --> 00:00:07,600
         Yes.

        4
        00:00:07,600 --> 00:00:15,000
         And then after that we went back and looked at all of it again from the start.

        """

    @Test func whisperShapedSRTReportsTheExpectedViolations() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("talk.en.srt")
        try whisperShapedBytes().write(to: url)

        let report = try Lint.check(fileAt: url, profile: .netflixEnglish, fps: 25)
        let found = report.violations.map { "\($0.cue) \($0.rule.rawValue)" }
        #expect(found == [
            "1 line-too-long",        // 83 characters on one line
            "1 gap-too-short",        // gapless
            "2 gap-too-short",
            "3 duration-too-short",   // 400 ms
            "3 gap-too-short",
            "4 line-too-long",        // 78 characters
            "4 duration-too-long",    // 7.4 s
        ])
        #expect(!report.passed)
        #expect(report.formatted.contains("cue 3 00:00:07,200 --> 00:00:07,600  duration-too-short: shown for 400 ms; at least 834 ms needed"))
        #expect(report.formatted.hasSuffix("7 violations (line-too-long 2, duration-too-short 1, duration-too-long 1, gap-too-short 3)"))
        #expect(report.violationCounts[.gapTooShort] == 3)
    }

    private func whisperShapedBytes() -> Data { Data(Self.whisperShaped.utf8) }

    /// `Lint.check` of the cues of the file read whole, as `read` gives them (in time order).
    static func checkReadWhole(_ url: URL) throws -> LintReport {
        try Lint.check(url, profile: .netflixEnglish, fps: 25, video: nil, listing: nil) { body in
            let document = try SubtitleReader.read(fileAt: url)
            try document.cues.forEach(body)
            return (document.format, document.encoding, document.warnings)
        }
    }

    /// An ASS script and a UTF-16 SRT, read a piece at a time, get the findings (cue numbers,
    /// times, warnings) of their cues read whole: the script's events in time order, as renderers
    /// show them; the SRT's in file order, as the same SRT's in UTF-8 always were (so a cue out of
    /// order is said, not sorted away).
    @Test func streamedASSAndUTF16GetTheFindingsOfReadingWhole() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        func lint(_ url: URL) throws -> LintReport { try Lint.check(fileAt: url, profile: .netflixEnglish, fps: 25, listing: nil) }
        func findings(_ report: LintReport) -> String {
            "\(report.cueCount) \(report.violations) \(report.violationCounts.sorted { $0.key < $1.key }) \(report.warnings)"
        }

        let ass = folder.appendingPathComponent("talk.en.ass")
        try Data("""
            [Script Info]
            ScriptType: v4.00+

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
            Dialogue: 0,0:00:04.00,0:00:13.00,Default,,0,0,0,,Far too long on screen, and then after that it says a lot more
            Dialogue: 0,0:00:00.00,0:00:20.00,Notice,,0,0,0,,Automatic captions
            Dialogue: 0,0:00:01.00,0:00:04.50,Default,,0,0,0,,It starts here and
            Dialogue: 0,0:00:13.00,0:00:14.00,Default,,0,0,0,,Thank you.
            Dialogue: 0,0:00:14.00,0:00:15.00,Default,,0,0,0,,Thank you.

            """.utf8).write(to: ass)
        let streamed = try lint(ass)
        #expect(findings(streamed) == findings(try Self.checkReadWhole(ass)))
        #expect(streamed.violations.map { "\($0.cue) \($0.rule.rawValue)" } == ["1 overlap", "2 line-too-long", "2 duration-too-long", "2 gap-too-short", "3 gap-too-short"],
                "\(streamed.formatted)")

        for (name, order) in [("ordered", [1, 2, 3]), ("unordered", [2, 1, 3])] {
            let text = order.map { ["1\n00:00:01,000 --> 00:00:02,000\nOne and\n", "2\n00:00:02,040 --> 00:00:03,000\nTwo.\n", "3\n00:00:09,000 --> 00:00:20,000\nThree.\n"][$0 - 1] }
                .joined(separator: "\n")
            let utf8 = folder.appendingPathComponent("\(name).en.srt"), utf16 = folder.appendingPathComponent("\(name)16.en.srt")
            try Data(text.utf8).write(to: utf8)
            try (Data([0xFE, 0xFF]) + #require(text.data(using: .utf16BigEndian))).write(to: utf16)
            let report = try lint(utf16), asUTF8 = try lint(utf8), readWhole = try Self.checkReadWhole(utf16)
            #expect(report.encoding == .utf16BE && findings(report) == findings(asUTF8))
            #expect((findings(report) == findings(readWhole)) == (name == "ordered"))
            #expect(report.violationCounts[.outOfOrder] == (name == "ordered" ? nil : 1), "\(report.formatted)")
        }
    }

    @Test func profilesDiffer() throws {
        let cue = Cue(start: 0, end: 1500, lines: ["A line of thirty-four characters!!", "x"])
        let check = { (profile: CaptionProfile) in try CueRules(profile: profile, framesPerSecond: nil).violations(in: [cue]).map(\.rule) }
        #expect(try check(.netflixEnglish) == [.readingSpeed])  // 35 characters (with "x") in 1.5 s
        #expect(try check(.dcmp) == [.lineTooLong, .durationTooShort, .readingSpeed])
        #expect(try check(.bbc) == [.readingSpeed, .wordsPerMinute])  // 6 words in 1.5 s is 240 per minute
    }

    @Test func gapsAreJudgedInFramesOfTheVideo() throws {
        let cues = [Cue(start: 0, end: 1000, lines: ["One."]), Cue(start: 1100, end: 2000, lines: ["Two."])]
        // 100 ms is 2.5 frames at 25 fps (unchained) but 6 frames at 60 fps (also unchained), and 1.2 at 12.
        #expect(try CueRules(profile: .netflixEnglish, framesPerSecond: 25).violations(in: cues).map(\.rule) == [.unchainedGap])
        #expect(try CueRules(profile: .netflixEnglish, framesPerSecond: 12).violations(in: cues).map(\.rule) == [.gapTooShort])
        let chained = [cues[0], Cue(start: 1084, end: 2000, lines: ["Two."])]
        #expect(try CueRules(profile: .netflixEnglish, framesPerSecond: 24).violations(in: chained).isEmpty)
        #expect(throws: CaptionError.invalidFrameRate(0)) { try CueRules(profile: .netflixEnglish, framesPerSecond: 0) }
    }

    @Test func centisecondTimesAreJudgedToTheirPrecision() throws {
        // Two frames at 24 fps are 83.3 ms; ASS can write 80 or 90 ms, and 80 is the chained gap there.
        let written = [Cue(start: 0, end: 1000, lines: ["One."]), Cue(start: 1080, end: 2000, lines: ["Two."])]
        #expect(try CueRules(profile: .netflixEnglish, framesPerSecond: 24, resolution: 10).violations(in: written).isEmpty)
        #expect(try CueRules(profile: .netflixEnglish, framesPerSecond: 24).violations(in: written).map(\.rule) == [.gapTooShort])
        let tooClose = [written[0], Cue(start: 1070, end: 2000, lines: ["Two."])]
        #expect(try CueRules(profile: .netflixEnglish, framesPerSecond: 24, resolution: 10).violations(in: tooClose).map(\.rule) == [.gapTooShort])
    }

    @Test func profileLookupAndFiles() throws {
        #expect(try Lint.profile(named: "BBC") == .bbc)
        #expect(throws: ProfileError.unknown(name: "nope", available: ["auto"] + CaptionProfile.builtIn.map(\.name))) { try Lint.profile(named: "nope") }
        #expect(try Lint.profile(named: "auto") == nil)
        #expect(try Lint.profile(named: "netflix-ja")?.maxCharactersPerLine == 13)
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("kids.json")
        try Data(#"{"base": "dcmp", "maxCharactersPerSecond": 12, "targetCharactersPerSecond": 10}"#.utf8).write(to: file)
        let profile = try #require(try Lint.profile(named: file.path))
        #expect(profile.name == "kids" && profile.maxCharactersPerLine == 32 && profile.maxCharactersPerSecond == 12 && profile.minDuration == 2000)
        try Data(#"{"maxCharactersPerSecond": "fast"}"#.utf8).write(to: file)
        #expect(throws: ProfileError.self) { try CaptionProfile.load(from: file) }
        try Data(#"{"maxCharactersPerSecond": 1}"#.utf8).write(to: file)
        #expect(throws: ProfileError.invalid(profile: "kids", reason: "targetCharactersPerSecond is above maxCharactersPerSecond")) {
            try CaptionProfile.load(from: file)
        }
    }

    @Test func sparseCuesAreJudgedAtTheLanguagesReadingSpeed() throws {
        let chinese = try CueRules(profile: #require(try Lint.profile(named: "netflix-zh")), framesPerSecond: 25)
        // 16 characters over 4.8 s is ordinary Mandarin; 2 over 6 s is not.
        let cues = [Cue(start: 0, end: 4800, lines: ["可惜那天早上起得太晚", "没能看到日出"]), Cue(start: 6000, end: 12000, lines: ["音乐"])]
        let report = QualityReport(cues: cues, words: [], rules: chinese, lowConfidenceThreshold: 0.5)
        #expect(report.warnings.map(\.cue) == [2])
        let english = try CueRules(profile: .netflixEnglish, framesPerSecond: 25)
        let sixteenLetters = [Cue(start: 0, end: 4800, lines: ["It is all right."])]
        #expect(QualityReport(cues: sixteenLetters, words: [], rules: english, lowConfidenceThreshold: 0.5).warnings.map(\.kind) == [.sparseLongCue])
    }

    @Test func qualityReportWarnsAboutLoopsAndSparseCues() throws {
        let rules = try CueRules(profile: .netflixEnglish, framesPerSecond: 25)
        let cues = (0..<4).map { Cue(start: $0 * 2000, end: $0 * 2000 + 1500, lines: ["Thank you."]) }
            + [Cue(start: 9000, end: 15000, lines: ["Music"])]
        let report = QualityReport(cues: cues, words: Fixtures.mixedWords, rules: rules, lowConfidenceThreshold: 0.5)
        #expect(report.warnings.map(\.kind) == [.repeatedLine, .sparseLongCue])
        #expect(report.warnings.map(\.cue) == [1, 5])
        #expect(report.lowConfidenceShare == 0.25)
        #expect(report.speechShareByTier == ["modern": 0.5, "basic": 0.5])
        #expect(report.violations["unchained-gap"] == 0 && report.violationCount == 0)
        #expect(report.summary.contains("low-confidence words: 25.0%"))
    }
}

@Suite struct PhraseSplitLintTests {
    @Test func cueAndLineEndsLeavingAnEnglishPhraseOpenAreSaidNotCounted() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-phrase-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let srt = """
            1
            00:00:01,000 --> 00:00:03,000
            A caption is rarely a

            2
            00:00:03,500 --> 00:00:07,000
            good read when it breaks and
            then goes on. Or so, they say.

            """
        let english = folder.appendingPathComponent("talk.en.srt"), german = folder.appendingPathComponent("talk.de.srt")
        for url in [english, german] { try srt.write(to: url, atomically: true, encoding: .utf8) }
        let report = try Lint.check(fileAt: english, fps: 25)
        let splits = report.warnings.filter { $0.kind == .phraseSplit }
        #expect(splits.map(\.cue) == [1, 2])
        #expect(splits.map(\.message) == ["the cue ends on \u{201C}a\u{201D}, leaving its phrase to what follows",
                                          "line 1 ends on \u{201C}and\u{201D}, leaving its phrase to what follows"])
        #expect(report.formatted.contains("warning: cue 1: the cue ends on"))
        // Warnings, not violations: they do not fail the file.
        #expect(report.passed, "\(report.formatted)")
        #expect(try Lint.check(fileAt: german, fps: 25).warnings.allSatisfy { $0.kind != .phraseSplit })
    }
}
