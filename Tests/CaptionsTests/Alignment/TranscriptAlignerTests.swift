import CapforgeCore
@testable import Captions
import Foundation
import Testing

/// A transcript's words, exactly as written, get their times from what was heard; what the audio
/// does not support is left out and said, and so is what was said that the transcript lacks.
@Suite struct TranscriptAlignerTests {
    /// Heard words, one every `step` seconds from `start`, each lasting 80 % of it.
    static func heard(_ text: String, from start: Double = 1, step: Double = 0.4, tier: Tier = .modern) -> [Word] {
        text.split(separator: " ").enumerated().map { index, word in
            Word(text: String(word), start: start + Double(index) * step, end: start + Double(index) * step + 0.8 * step, confidence: 0.9,
                 tier: tier, engine: tier == .modern ? "whisper" : "pocketsphinx")
        }
    }

    static func align(_ text: String, _ words: [Word], speech: [TimeSpan]? = nil) -> Transcript {
        let heard = Transcript(language: .english, words: words, duration: (words.last?.end ?? 0) + 2)
        let spans = speech ?? [TimeSpan(start: words.first?.start ?? 0, end: words.last?.end ?? 0)]
        return TranscriptAligner.align(WrittenTranscript(text: text), source: "talk.txt", to: heard, speech: spans)
    }

    @Test func theWordsAreTheTranscriptsAsWrittenAtTheTimesTheyWereHeard() {
        let words = Self.heard("so the doctor said it was fine and we went home")
        let aligned = Self.align("So the Doctor said: \"it was fine\",\nand we went home.", words)
        #expect(aligned.words.map(\.text) == ["So", "the", "Doctor", "said:", "\"it", "was", "fine\",", "and", "we", "went", "home."])
        #expect(aligned.words.map(\.start) == words.map(\.start))
        #expect(aligned.words.map(\.end) == words.map(\.end))
        #expect(aligned.alignment?.matched == 11)
        #expect(aligned.alignment?.notHeard == [] && aligned.alignment?.notInTranscript == [])
        // The user's text is not a guess.
        #expect(aligned.words.allSatisfy { $0.score == 1 && $0.tier == .modern })
    }

    @Test func aNameHeardOtherwiseTakesTheTimeOfWhatWasHeard() {
        let words = Self.heard("we met doctor siobhan mcgrath in the lab at nine")
        let aligned = Self.align("We met Doctor Shivawn McGraw in the lab at nine.", words)
        #expect(aligned.words.map(\.text).joined(separator: " ") == "We met Doctor Shivawn McGraw in the lab at nine.")
        // "McGraw" and "mcgrath" are spelt nearly alike: a match; "Shivawn" is placed between.
        #expect(aligned.words[4].start == words[4].start)
        #expect(aligned.words[3].start >= words[3].start - 0.01 && aligned.words[3].end <= words[4].start + 0.01)
        #expect(aligned.alignment?.notHeard == [])
    }

    @Test func aParagraphNeverSaidIsLeftOutAndNamedWithItsLine() {
        let words = Self.heard("first we tried the old way then we tried the new way and it worked")
        let text = "First we tried the old way.\nThis sentence was written for the talk but never said aloud by anyone.\nThen we tried the new way, and it worked."
        let aligned = Self.align(text, words)
        #expect(aligned.words.map(\.text).joined(separator: " ") == "First we tried the old way. Then we tried the new way, and it worked.")
        let passage = try! #require(aligned.alignment?.notHeard.first)
        #expect(passage.line == 2 && passage.words == 13)
        #expect(passage.text == "This sentence was written for the talk but never said aloud by anyone.")
        #expect(abs(passage.start - words[5].end) < 0.01 && abs(passage.end - words[6].start) < 0.01)
        #expect(aligned.alignment?.matched == 15)
    }

    @Test func speechTheTranscriptLacksIsNamedAndNotCaptioned() {
        let words = Self.heard("welcome everyone sorry i am late the traffic was terrible today we start with chapter one")
        let aligned = Self.align("Welcome, everyone. Today we start with chapter one.", words)
        #expect(aligned.words.map(\.text) == ["Welcome,", "everyone.", "Today", "we", "start", "with", "chapter", "one."])
        let extra = try! #require(aligned.alignment?.notInTranscript.first)
        #expect(extra.text == "sorry i am late the traffic was terrible")
        #expect(extra.line == nil && extra.words == 8 && abs(extra.start - words[2].start) < 0.01)
    }

    @Test func wordsTheRecogniserMissedAreTimedByTheSpeechAroundThem() {
        // The recogniser heard nothing for two seconds of speech: the transcript's words there
        // share that speech, in order.
        var words = Self.heard("the results were clear", from: 1)
        words += Self.heard("so we published them", from: 5)
        let speech = [TimeSpan(start: 1, end: 2.6), TimeSpan(start: 2.8, end: 4.8), TimeSpan(start: 5, end: 6.6)]
        let aligned = Self.align("The results were clear: every patient improved within a week. So we published them.", words, speech: speech)
        #expect(aligned.alignment?.notHeard == [])
        #expect(aligned.alignment?.timedBetween == 6)
        let placed = aligned.words[4..<10]
        #expect(placed.map(\.text) == ["every", "patient", "improved", "within", "a", "week."])
        #expect(placed.allSatisfy { $0.start >= 2.8 - 0.001 && $0.end <= 4.8 + 0.001 })
        #expect(zip(placed, placed.dropFirst()).allSatisfy { $0.start < $1.start })
    }

    @Test func theBasicTiersWordsTimeWhatTheyMatchAndCarryTheirTier() {
        let words = Self.heard("it was a bride cold day in april and the clocks were striking thirteen", tier: .basic)
        let aligned = Self.align("It was a bright cold day in April, and the clocks were striking thirteen.", words)
        #expect(aligned.words.count == 14)
        #expect(aligned.words.allSatisfy { $0.tier == .basic })
        #expect(aligned.tier == .basic)
        #expect(aligned.words[3].text == "bright" && aligned.words[3].start == words[3].start)
    }

    @Test func japaneseIsCutIntoWordsWithItsPunctuationAndMatchedCharacterByCharacter() throws {
        let written = WrittenTranscript(text: "皆さん、こんにちは。「今日は」図書館で話します。")
        #expect(written.words.map(\.text).joined() == "皆さん、こんにちは。「今日は」図書館で話します。")
        #expect(written.words.first?.text == "皆さん、")
        #expect(written.words.contains { $0.text.hasPrefix("「") && $0.text.count > 1 })
        #expect(!written.words.contains { $0.text.allSatisfy(\.isPunctuation) })
        // Whisper's pieces differ from the words; the characters match.
        let pieces = ["皆", "さん", "、", "こんにち", "は", "。", "今日", "は", "図書", "館", "で", "話", "します", "。"]
        let words = pieces.enumerated().map { index, piece in
            Word(text: piece, start: Double(index) * 0.3, end: Double(index) * 0.3 + 0.25, confidence: 0.8, tier: .modern, engine: "whisper")
        }
        let heard = Transcript(language: Language("ja")!, words: words, duration: 5)
        let aligned = TranscriptAligner.align(written, source: "ja.txt", to: heard, speech: [TimeSpan(start: 0, end: 4.2)])
        #expect(aligned.words.map(\.text) == written.words.map(\.text))
        #expect(aligned.alignment?.notHeard == [])
        let library = try #require(aligned.words.first { $0.text.hasPrefix("図書館") })
        #expect(library.start == words[8].start && library.end == words[9].end)
    }

    @Test func transcriptTextIsReadInItsEncodingWithLineNumbers() throws {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in "Caf\u{E9} one\r\n\r\nthree".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let written = try WrittenTranscript.read(Data(bytes), path: "t.txt")
        #expect(written.words.map(\.text) == ["Café", "one", "three"])
        #expect(written.words.map(\.line) == [1, 1, 3])
        #expect(throws: TranscriptFileError.noWords(path: "e.txt")) { try WrittenTranscript.read(Data(" \n — \n".utf8), path: "e.txt") }
        #expect(throws: (any Error).self) { try WrittenTranscript.read(Data([0x00, 0x01, 0x02, 0xFF]), path: "b.txt") }
    }

    @Test func soundDescriptionsAreKeptWhereTheyAreWrittenAndAFewWordsMissedAreKeptAsEstimates() {
        let words = Self.heard("thank you all for coming today we begin with the budget")
        let aligned = Self.align("[applause] Thank you all for coming. (laughs) Well, today we begin with the budget.", words)
        // Neither the descriptions nor "Well," were heard; none is left out, and "Well," is said to be estimated.
        #expect(aligned.words.map(\.text) == ["[applause]", "Thank", "you", "all", "for", "coming.", "(laughs)", "Well,", "today", "we", "begin", "with", "the", "budget."])
        #expect(aligned.alignment?.notHeard == [])
        #expect(aligned.alignment?.estimated.map(\.text) == ["Well,"])
        #expect(zip(aligned.words, aligned.words.dropFirst()).allSatisfy { $0.start <= $1.start })
        let written = WrittenTranscript(text: "(door slams\nHello [to Anna] there")
        #expect(written.words.map(\.isDescription) == [true, true, false, true, true, false])
    }

    @Test func placingSharesTheSpeechByLengthAndKeepsAWordWithinItsSpan() {
        let placed = TranscriptAligner.place([1, 3], over: [TimeSpan(start: 0, end: 1), TimeSpan(start: 2, end: 5)])
        #expect(placed[0].start == 0 && placed[0].end == 1)
        #expect(placed[1].start == 2 && placed[1].end == 5)
        #expect(TranscriptAligner.similarity("mcgraw", "mcgrath") >= TranscriptAligner.nearMatch)
        #expect(TranscriptAligner.similarity("a", "a") == 0 && TranscriptAligner.similarity("of", "of") == 0)
        #expect(TranscriptAligner.similarity("list", "least") < TranscriptAligner.nearMatch)
    }

    /// Markup from a subtitle file is not words (libass obeys `{\\an8}` in SRT): it is left out,
    /// and said; a brace or bracket that opens no markup stays.
    @Test func subtitleMarkupIsLeftOutOfTheWordsAndSaid() {
        let written = WrittenTranscript(text: "{\\an8}{\\fs120}Hello <i>there</i>,\n<font color=\"red\">dear</font> <v Anna>friend<00:01.500> {sighs} a<b and 3 < 4")
        #expect(written.words.map(\.text) == ["Hello", "there,", "dear", "friend", "{sighs}", "a<b", "and", "3", "<", "4"])
        #expect(written.words.map(\.line) == [1, 1, 2, 2, 2, 2, 2, 2, 2, 2])
        #expect(written.notes == ["transcript line 1: formatting markup {\\an8} left out (8 pieces of markup in all: override blocks {\\…}, tags <…>): "
            + "the captions show the transcript's words, in the caption style"])
        #expect(WrittenTranscript(text: "plain words").notes.isEmpty)
    }

    /// A huge text costs its first words only; a run without spaces is cut into words.
    @Test func readingStopsPastTheWordLimitAndCutsRunsWithoutSpaces() {
        let text = String(repeating: "word ", count: 2_000_000)
        let started = Date()
        let first = WrittenTranscript(text: text, wordLimit: 100)
        #expect(first.words.count == 100 && !first.isWhole)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(WrittenTranscript(text: "a b c", wordLimit: 3).isWhole)
        let run = WrittenTranscript(text: String(repeating: "x", count: 600) + " end")
        #expect(run.words.map(\.text.count) == [256, 256, 88, 3])
        #expect(run.notes == ["transcript line 1: more than 256 characters without a space, cut into words of at most 256"])
    }

    /// Heard words a transcript does not account for are named whatever its length: a
    /// transcript of descriptions only, or one far shorter than what was heard between matches.
    @Test func heardSpeechTheTranscriptLacksIsNamedWhateverItsLength() {
        let words = Self.heard("and mister john dashwood had then leisure to consider how much there might be")
        let described = Self.align("[music] [applause]", words)
        #expect(described.alignment?.notInTranscript.map(\.words) == [words.count])
        #expect(described.words.map(\.text) == ["[music]", "[applause]"])
        // Where nothing was heard: before the first word, after the last.
        #expect(described.words.allSatisfy { $0.end <= words[0].start + 0.001 || $0.start >= words.last!.end - 0.001 }, "\(described.words)")
        let short = Self.align("And Mister John, as you know. Might be.", words)
        #expect(short.alignment?.notInTranscript.map(\.text) == ["dashwood had then leisure to consider how much there"])
        #expect(short.alignment?.estimated.map(\.text) == ["as you know."])
    }

    /// Without an exact run of two, words spelt like others heard are met by chance: nothing is matched.
    @Test func nearMatchesNeedAnExactRunToLeanOn() {
        let words = Self.heard("and mister john dashwood had then leisure to consider how much there might be")
        let unrelated = Self.align("Quantum physics considers bananas, mistery leisurely.", words)
        #expect(unrelated.alignment?.matched == 0)
        #expect(unrelated.alignment?.notInTranscript.map(\.words) == [words.count])
    }
}
