import CapforgeCore
import Foundation
import Testing

@testable import Captions

/// Caption rules by language: the profile each language gets, Chinese and Japanese laid out in
/// whole words within their line lengths, European break rules, French spacing.
@Suite struct LanguageProfileTests {
    /// Tokens as a recogniser returns them (pieces of words, not words), `charactersPerSecond` apart.
    static func tokens(_ pieces: [String], charactersPerSecond: Double, from start: Double = 0) -> [Word] {
        var time = start
        return pieces.map { piece in
            let duration = Double(piece.count) / charactersPerSecond
            defer { time += duration }
            return Fixtures.word(piece, time, time + duration)
        }
    }

    @Test func eachLanguageGetsItsOwnGuideAndOthersTheEnglishOne() {
        #expect(CaptionProfile.forLanguage(Language("ja")!).maxCharactersPerLine == 13)
        #expect(CaptionProfile.forLanguage(Language("ko")!).maxCharactersPerLine == 16)
        #expect(CaptionProfile.forLanguage(Language("zh")!).maxCharactersPerLine == 16)
        #expect(CaptionProfile.forLanguage(Language("fr")!).maxCharactersPerSecond == 17)
        #expect(CaptionProfile.forLanguage(Language("de")!).name == "netflix-de")
        #expect(CaptionProfile.forLanguage(.english) == .netflixEnglish)
        #expect(CaptionProfile.forLanguage(Language("fi")!) == .netflixEnglish)
        for profile in CaptionProfile.builtIn { #expect(throws: Never.self) { try profile.validate() } }
    }

    @Test func fullWidthCountingHalvesLatinAndSpaces() {
        let korean = CaptionProfile.forLanguage(Language("ko")!)
        // Eight Hangul syllables, one space, two Latin letters: 8 + 0.5 + 1.
        #expect(korean.length(of: "안녕하세요 여러분 OK") == 9 + 1.5 - 0.5)
        #expect(korean.length(of: "안녕하세요여러분") == 8)
        #expect(korean.readingLength(["日本", "ab"]) == 3)
        #expect(CaptionProfile.netflixEnglish.length(of: "hello") == 5)
    }

    @Test func japaneseLinesHoldThirteenCharactersAndBreakBetweenWords() throws {
        // Token boundaries fall inside words (図|書館, 日本|語): the lines must not.
        let pieces = ["今日", "は", "図", "書館", "で", "日本", "語", "の", "勉強", "を", "しま", "した", "。", "明日", "は", "友達", "と", "一緒", "に", "映画", "を", "見", "に", "行き", "ます", "。"]
        let words = Self.tokens(pieces, charactersPerSecond: 4)
        let language = Language("ja")!
        let result = try CueBuilder(profile: .forLanguage(language), fps: 24, language: language).build(words: words)
        let text = pieces.joined()
        let starts = try WordSegmentation.wordStarts(in: text)
        for cue in result.cues {
            for line in cue.lines {
                #expect(CaptionProfile.forLanguage(language).length(of: line) <= 13, "\(line)")
                #expect(!Punctuation.mayNotStartLine(line.first!), "\(line)")
            }
        }
        // Every line and cue ends where a word does.
        var offset = 0
        for line in result.cues.flatMap(\.lines) {
            offset += line.count
            #expect(offset == text.count || starts.contains(offset), "a break inside a word after \(line)")
        }
        #expect(result.cues.flatMap(\.lines).joined() == text, "no character lost or added")
        #expect(result.violations.isEmpty, "\(result.violations)")
    }

    @Test func chineseSplitsAtWordsOfItsOwnSegmentation() throws {
        let text = "我们今天去图书馆学习中文，老师说明天会下雨，所以我们要带雨伞。"
        let units = TextUnit.units(of: Array(text).map(String.init))
        let breaker = LineBreaker(maxWidth: CaptionProfile.forLanguage(Language("zh")!).lineColumns, maxLines: 2, rules: nil)
        let lines = try #require(breaker.layout(Array(units.prefix(20))))
        #expect(lines.count == 2)
        #expect(lines[0].hasSuffix("，") || !["图", "书", "学", "中"].contains(String(lines[1].first!)), "\(lines)")
        let starts = try WordSegmentation.wordStarts(in: lines.joined())
        #expect(starts.contains(lines[0].count), "\(lines) breaks inside a word")
    }

    @Test func speechFasterThanTheReadingSpeedStaysInSyncAndIsReported() throws {
        // 8 characters a second for a minute, twice the Japanese guide's reading speed.
        let pieces = (0..<120).map { ["日本語", "の", "勉強", "を", "しています", "。"][$0 % 6] }
        let words = Self.tokens(pieces, charactersPerSecond: 8)
        let language = Language("ja")!
        let result = try CueBuilder(profile: .forLanguage(language), fps: 25, language: language).build(words: words)
        let minimum = Int(CaptionProfile.forLanguage(language).minDuration.rounded(.up))
        for cue in result.cues {
            let speech = Int((cue.words[0].start * 1000).rounded())
            #expect(cue.start - speech <= CueBuilder.maxDelay + minimum, "cue at \(cue.start) ms is \(cue.start - speech) ms behind its speech")
        }
        #expect(!result.violations.isEmpty && result.violations.allSatisfy { $0.rule == .readingSpeed })
        #expect(result.cues.flatMap(\.words) == words)
    }

    @Test func europeanLinesDoNotEndOnArticlesPrepositionsOrConjunctions() throws {
        let breaker = LineBreaker(maxWidth: 42, maxLines: 2, rules: BreakRules.forLanguage(Language("fr")!))
        let words = "Nous avons parlé longtemps avec le directeur de la banque et sa femme".split(separator: " ").map(String.init)
        let lines = try #require(breaker.layout(TextUnit.units(of: words)))
        #expect(lines.count == 2)
        let last = BreakRules.normalised(String(lines[0].split(separator: " ").last!))
        #expect(!["le", "la", "de", "avec", "et", "sa"].contains(last), "\(lines)")
        #expect(BreakRules.forLanguage(Language("de")!)?.leavesPhraseOpen("der") == true)
        #expect(BreakRules.forLanguage(Language("es")!)?.leavesPhraseOpen("para") == true)
        #expect(BreakRules.forLanguage(Language("es")!)?.leavesPhraseOpen("para.") == false)
        #expect(BreakRules.forLanguage(Language("ja")!) == nil)
    }

    @Test func frenchGetsNoBreakSpacesBeforeDoublePunctuation() throws {
        #expect(FrenchSpacing.spaced("Vraiment?") == "Vraiment\u{202F}?")
        #expect(FrenchSpacing.spaced("quoi?!") == "quoi\u{202F}?!")
        #expect(FrenchSpacing.spaced("attention:") == "attention\u{00A0}:")
        #expect(FrenchSpacing.spaced("«Bonjour»") == "«\u{00A0}Bonjour\u{00A0}»")
        #expect(FrenchSpacing.spaced("10:30") == "10:30", "only a mark that ends the word")
        #expect(FrenchSpacing.spaced("bien") == "bien")
        let french = Language("fr")!
        let cues = try CueBuilder(profile: .forLanguage(french), fps: 25, language: french)
            .build(words: CueBuilderTests.timed("Tu viens? Oui!")).cues
        #expect(cues.map(\.text) == ["Tu viens\u{202F}? Oui\u{202F}!"])
        // English is left as the recogniser wrote it.
        #expect(try CueBuilder(fps: 25).build(words: CueBuilderTests.timed("You coming? Yes!")).cues.map(\.text) == ["You coming? Yes!"])
    }

    @Test func lintJudgesAFileByTheRulesOfItsLanguage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lint-lang-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let srt = "1\n00:00:01,000 --> 00:00:07,000\n今日は図書館で日本語の勉強をしました\n"
        let japanese = folder.appendingPathComponent("talk.ja.srt")
        try Data(srt.utf8).write(to: japanese)
        let report = try Lint.check(fileAt: japanese, fps: 25)
        #expect(report.profile.name == "netflix-ja")
        #expect(report.violations.map(\.rule) == [.lineTooLong])
        #expect(report.violations.first?.message.hasPrefix("line of 18 characters; at most 13") == true)
        // The same file named as English has the English rules: 36 columns fit in 42.
        let english = folder.appendingPathComponent("talk.en.srt")
        try Data(srt.utf8).write(to: english)
        #expect(try Lint.check(fileAt: english, fps: 25).violations.isEmpty)
    }
}
