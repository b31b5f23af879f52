import CapforgeCore
import Testing
@testable import Speech

@Suite struct SpeechCoverageTests {
    private func word(_ text: String, _ start: Double, _ end: Double) -> Word {
        Word(text: text, start: start, end: end, confidence: 0.9, calibratedConfidence: 0.9, tier: .modern, engine: "whisper")
    }

    @Test func oneWordForSevenSecondsOfSpeechIsTooFew() throws {
        // base on the Korean fixture: five syllables over 7.1 s of detected speech.
        let reason = try #require(SpeechCoverage.shortfall([word("아맙습니다.", 0, 6.78)], speechSeconds: 7.1, model: "base"))
        #expect(reason == "base wrote 1 word(s) (“아맙습니다.”) for 7.1 s of detected speech, too few to be what was said")
    }

    @Test func aSlowSpeakerOrAShortWindowIsNotJudged() {
        // Three words for 7 s of speech: slow, with pauses the detector bridged, but possible.
        #expect(SpeechCoverage.shortfall([word("well", 0, 1), word("I", 2, 2.2), word("see.", 5, 6)], speechSeconds: 7, model: "base") == nil)
        // Under 3 s of speech: "Yes." for a breathy 2.5 s is no evidence either way.
        #expect(SpeechCoverage.shortfall([word("Yes.", 0, 2.5)], speechSeconds: 2.5, model: "base") == nil)
        // No words is no speech heard: the guard and the report speak for that.
        #expect(SpeechCoverage.shortfall([], speechSeconds: 30, model: "base") == nil)
    }

    @Test func speechIsCountedInsideTheWindowOnly() {
        let speech = [SpeechRegion(start: 0, end: 4), SpeechRegion(start: 6, end: 12)]
        #expect(SpeechCoverage.speechSeconds(speech, from: 2, to: 8) == 4)
    }

    @Test func onlyTextMadeOfStockAndOutroPhrasesNeedsMoreEvidence() {
        let outro = ["Please", "subscribe", "and", "like.", "Thank", "you."].enumerated().map { word($1, Double($0), Double($0) + 0.5) }
        #expect(HallucinationGuard.isStockText(outro))
        #expect(HallucinationGuard.isStockText([word("Thanks", 0, 0.5), word("for", 0.5, 0.7), word("watching!", 0.7, 1.2)]))
        #expect(!HallucinationGuard.isStockText([word("Thank", 0, 0.3), word("you", 0.3, 0.5), word("doctor.", 0.5, 1)]))
        #expect(!HallucinationGuard.isStockText([word("Please", 0, 0.3), word("subscribe.", 0.3, 0.8), word("Today", 1, 1.3), word("we", 1.3, 1.4),
                                                 word("cook.", 1.4, 1.9)]))
        #expect(!HallucinationGuard.isStockText([]))
    }
}
