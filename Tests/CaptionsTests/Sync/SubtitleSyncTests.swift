import CapforgeCore
@testable import Captions
import Foundation
import Testing

/// Re-timing: the file keeps every byte but its times, and the map is found from words or speech.
@Suite struct RetimableSubtitlesTests {
    @Test func onlyTheTimesOfAnSRTChangeWithItsBOMLineEndingsAndTags() throws {
        let original = "\u{FEFF}1\r\n00:00:01,000 --> 00:00:02,500\r\n<i>Hello</i> there,\r\nfriend\r\n\r\n7\r\n00:00:03,000 --> 00:00:04,000\r\nBye\r\n"
        let file = try RetimableSubtitles(data: Data(original.utf8), format: .srt)
        #expect(file.entries.map(\.start) == [1000, 3000])
        #expect(file.entries[0].text == "Hello there, friend")
        let data = try file.retimed([(11_000, 12_500), (13_040, 14_000)])
        #expect(String(decoding: data, as: UTF8.self)
            == "\u{FEFF}1\r\n00:00:11,000 --> 00:00:12,500\r\n<i>Hello</i> there,\r\nfriend\r\n\r\n7\r\n00:00:13,040 --> 00:00:14,000\r\nBye\r\n")
        #expect(Array(data.prefix(3)) == [0xEF, 0xBB, 0xBF])
        // A cue left out takes its blank line with it.
        let dropped = try file.retimed([nil, (3000, 4000)])
        #expect(String(decoding: dropped, as: UTF8.self) == "\u{FEFF}7\r\n00:00:03,000 --> 00:00:04,000\r\nBye\r\n")
    }

    @Test func assOverridesStylesAndTheNoticeStayAsWritten() throws {
        let script = """
        [Script Info]
        ScriptType: v4.00+

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
        Dialogue: 0,0:00:00.00,0:01:00.00,Notice,,0,0,0,,Basic quality
        Dialogue: 1,0:00:01.50,0:00:03.00,Default,,0,0,0,,{\\b1}Bold{\\b0}, and {\\pos(10,20)}placed
        Comment: 0,0:00:05.00,0:00:06.00,Default,,0,0,0,,a comment
        Dialogue: 0,0:00:04.00,0:00:05.25,Top,,0,0,0,,Second\\Nline

        """
        let file = try RetimableSubtitles(data: Data(script.utf8), format: .ass)
        #expect(file.entries.count == 2)
        #expect(file.entries[0].text == "Bold, and placed")
        let out = String(decoding: try file.retimed([(2_504, 4_000), (5_000, 6_250)]), as: UTF8.self)
        #expect(out == script
            .replacingOccurrences(of: "0:00:01.50,0:00:03.00", with: "0:00:02.50,0:00:04.00")
            .replacingOccurrences(of: "0:00:04.00,0:00:05.25", with: "0:00:05.00,0:00:06.25"))
    }

    @Test func webVTTKeepsCueSettingsNotesAndIdentifiers() throws {
        let vtt = "WEBVTT\n\nNOTE made by hand\n\nintro\n00:01.000 --> 00:02.000 line:90% align:start\nFish &amp; chips\n"
        let file = try RetimableSubtitles(data: Data(vtt.utf8), format: .vtt)
        #expect(file.entries.map(\.text) == ["Fish & chips"])
        let out = String(decoding: try file.retimed([(61_000, 62_000)]), as: UTF8.self)
        #expect(out == "WEBVTT\n\nNOTE made by hand\n\nintro\n00:01:01.000 --> 00:01:02.000 line:90% align:start\nFish &amp; chips\n")
    }

    @Test func windows1252TextIsWrittenBackInWindows1252() throws {
        var bytes = Array("1\n00:00:01,000 --> 00:00:02,000\nCaf".utf8)
        bytes += [0xE9, 0x20, 0x80, 0x0A]
        let file = try RetimableSubtitles(data: Data(bytes), format: .srt)
        #expect(file.encoding == .windows1252)
        let out = [UInt8](try file.retimed([(5_000, 6_000)]))
        #expect(out == Array("1\n00:00:05,000 --> 00:00:06,000\nCaf".utf8) + [0xE9, 0x20, 0x80, 0x0A])
    }
}

@Suite struct SubtitleSyncTests {
    /// Cues of four words each, 3 s apart, from a run of distinct words.
    static func cues(_ count: Int, gap: Int = 3000) -> [RetimableSubtitles.Entry] {
        let srt = (0..<count).map { i in
            "\(i + 1)\n\(Timecode.milliseconds(10_000 + i * gap, mark: ",")) --> \(Timecode.milliseconds(10_000 + i * gap + 2400, mark: ","))\n"
                + (0..<4).map { "w\(i)x\($0)" }.joined(separator: " ") + "\n"
        }.joined(separator: "\n")
        return (try? RetimableSubtitles(data: Data(srt.utf8), format: .srt).entries) ?? []
    }

    /// The cues' words as a recogniser would hear them on a copy whose clock is `media(t)`.
    static func heard(_ entries: [RetimableSubtitles.Entry], media: (Double) -> Double?) -> [Word] {
        entries.flatMap { entry in
            TextMatching.tokens(entry.text).enumerated().compactMap { k, token -> Word? in
                let t = Double(entry.start) / 1000 + 0.08 + Double(k) * 0.6
                return media(t).map { Word(text: token, start: $0, end: $0 + 0.5, confidence: 0.9, tier: .modern, engine: "test") }
            }
        }
    }

    static func startErrors(_ result: SyncResult, _ entries: [RetimableSubtitles.Entry], truth: (Int) -> Int?) -> [Int] {
        entries.indices.compactMap { i in
            guard let expected = truth(entries[i].start), let placed = result.times[i] else { return nil }
            return abs(placed.start - expected)
        }
    }

    @Test func aConstantOffsetIsFoundFromWords() throws {
        let entries = Self.cues(40)
        let words = Self.heard(entries) { $0 - 7.25 }
        let result = try #require(SubtitleSync.byWords(entries, words: words, mediaEnd: nil))
        #expect(result.map.rate == 1 && result.map.segments.count == 1)
        #expect(abs(result.map.segments[0].offset + 7250) <= 120)
        #expect(Self.startErrors(result, entries) { $0 - 7250 }.max()! <= 120)
        #expect(result.matched == 40 && result.unplaced.isEmpty)
    }

    @Test func aFrameRateConversionIsFoundAndNamed() throws {
        let entries = Self.cues(200)
        let rate = 25 / (24000.0 / 1001)
        let words = Self.heard(entries) { $0 * rate + 1.5 }
        let result = try #require(SubtitleSync.byWords(entries, words: words, mediaEnd: nil))
        #expect(result.map.rateName == "25/23.976")
        #expect(Self.startErrors(result, entries) { Int((Double($0) * rate).rounded()) + 1500 }.max()! <= 150)
    }

    @Test func aStretchAddedToTheMediaIsASplit() throws {
        let entries = Self.cues(60)
        // 20 s of something else inserted at 100 s of the subtitles' clock.
        let words = Self.heard(entries) { $0 < 100 ? $0 : $0 + 20 }
        let result = try #require(SubtitleSync.byWords(entries, words: words, mediaEnd: nil))
        #expect(result.map.segments.map(\.offset).map { ($0 + 50) / 1000 } == [0, 20])
        #expect(Self.startErrors(result, entries) { $0 < 100_000 ? $0 : $0 + 20_000 }.max()! <= 150)
    }

    @Test func cuesOfAStretchTheMediaLacksAreNotPlaced() throws {
        let entries = Self.cues(60)
        // The subtitles' 100–130 s are missing from this copy.
        let words = Self.heard(entries) { $0 < 100 ? $0 : $0 < 130 ? nil : $0 - 30 }
        let result = try #require(SubtitleSync.byWords(entries, words: words, mediaEnd: nil))
        let missing = entries.indices.filter { entries[$0].start >= 100_000 && entries[$0].start < 130_000 }
        #expect(!missing.isEmpty)
        // Each missing cue is either left out or placed where no matched cue is.
        for index in missing where result.times[index] != nil {
            let time = result.times[index]!
            #expect(!entries.indices.contains { other in
                !missing.contains(other) && result.times[other].map { $0.start < time.end && time.start < $0.end } == true
            })
        }
        #expect(Self.startErrors(result, entries) { $0 < 100_000 ? $0 : $0 >= 130_000 ? $0 - 30_000 : nil }.max()! <= 150)
    }

    @Test func subtitlesInAnotherLanguageGiveNoWordMatch() {
        let entries = Self.cues(30)
        let words = (0..<120).map { Word(text: "mot\($0)", start: Double($0), end: Double($0) + 0.4, confidence: 0.9, tier: .modern, engine: "test") }
        #expect(SubtitleSync.byWords(entries, words: words, mediaEnd: nil) == nil)
    }

    @Test func speechRegionsAloneFindAnOffset() {
        // Irregular cue lengths and gaps, as speech has.
        let lengths = [1800, 2600, 900, 3100, 1500, 2200, 700, 2900, 1300, 2500]
        var start = 5000
        var srt = ""
        for i in 0..<60 {
            let length = lengths[i % lengths.count], gap = 300 + (i * 7919 % 1700)
            srt += "\(i + 1)\n\(Timecode.milliseconds(start, mark: ",")) --> \(Timecode.milliseconds(start + length, mark: ","))\nline \(i)\n\n"
            start += length + gap
        }
        let entries = (try? RetimableSubtitles(data: Data(srt.utf8), format: .srt).entries) ?? []
        let speech = entries.map { TimeSpan(start: Double($0.start) / 1000 + 12.34 + 0.1, end: Double($0.end) / 1000 + 12.34) }
        let result = SubtitleSync.bySpeech(entries, speech: speech, mediaEnd: nil)
        #expect(result.evidence == .speech && result.map.rate == 1)
        #expect(result.map.segments.allSatisfy { abs($0.offset - 12_390) <= 100 }, "\(result.map)")
    }

    @Test func unspacedScriptsMatchCharacterByCharacter() {
        #expect(TextMatching.tokens("今日は、いい天気ですね") == ["今", "日", "は", "い", "い", "天", "気", "で", "す", "ね"])
        #expect(TextMatching.tokens("Don't stop — 2024's best!") == ["dont", "stop", "2024s", "best"])
    }
}
