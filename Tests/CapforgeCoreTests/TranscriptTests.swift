import Foundation
import Testing
@testable import CapforgeCore

@Suite struct TranscriptTests {
    func word(_ text: String, _ start: Double, _ end: Double, _ tier: Tier) -> Word {
        Word(text: text, start: start, end: end, confidence: 0.9, tier: tier, engine: tier == .modern ? "whisper" : "pocketsphinx")
    }

    @Test func tierReflectsWordsActuallyProduced() {
        var t = Transcript(language: .english, words: [], duration: 10)
        #expect(t.tier == .empty)
        t.words = [word("a", 0, 1, .modern)]
        #expect(t.tier == .modern)
        #expect(t.basicShare == 0)
        t.words.append(word("b", 1, 4, .basic))
        #expect(t.tier == .mixed)
        #expect(abs(t.basicShare - 0.75) < 1e-9)
        t.words.removeFirst()
        #expect(t.tier == .basic)
    }

    @Test func audioSliceKeepsTimeline() {
        let audio = MonoAudio(samples: (0..<32_000).map { Float($0) }, startTime: 1)
        let s = audio.slice(from: 1.5, to: 2.0)
        #expect(s.samples.count == 8_000)
        #expect(s.samples.first == 8_000)
        #expect(abs(s.startTime - 1.5) < 1e-9)
        #expect(audio.slice(from: 10, to: 12).samples.isEmpty)
    }

    @Test func cancellationPropagatesToChildren() {
        let parent = Cancellation()
        let child = parent.child(deadline: nil)
        #expect(child.reason == nil)
        parent.cancel()
        #expect(child.reason == .cancelled)
        let expired = Cancellation(deadline: .distantPast)
        #expect(expired.reason == .deadline)
    }

    /// A timeout says the deadline it missed: one made per decoding step said "its 0 s deadline".
    @Test func aTimeoutReportsTheDeadlineItMissed() {
        let allowed = Cancellation(deadline: Date() + 20)
        #expect(abs((allowed.allowedSeconds ?? 0) - 20) < 1 && allowed.expiredAllowance == nil)
        let parent = Cancellation(deadline: Date() - 0.001)
        let child = parent.child(deadline: Date() + 60)
        #expect(child.reason == .deadline && child.expiredAllowance ?? 1 <= 0)
    }
}

@Suite struct LanguageTests {
    @Test(arguments: ["en", "en-US", "en_GB", "eng", "English", " ENG "])
    func englishVariants(_ id: String) {
        #expect(Language(id)?.code == "en")
    }

    @Test func bibliographicAndTerminologicCodes() {
        #expect(Language("ger")?.code == "de")
        #expect(Language("deu")?.code == "de")
        #expect(Language("chi")?.code == "zh")
        #expect(Language("zh-Hant-TW")?.code == "zh")
        #expect(Language("kor")?.name == "Korean")
    }

    @Test func unknownIdentifiersAreNil() {
        #expect(Language("und") == nil)
        #expect(Language("xx") == nil)
        #expect(Language("") == nil)
    }
}

@Suite struct QualityNoticeTests {
    @Test func noticeFollowsTheCaptionLanguage() {
        #expect(QualityNotice.text(for: Language("kor")).hasPrefix("자동 자막"))
        #expect(QualityNotice.text(for: Language("de-AT")).hasPrefix("Automatische Untertitel"))
        #expect(QualityNotice.text(for: Language("sw")) == QualityNotice.english)
        #expect(QualityNotice.text(for: nil) == QualityNotice.english)
    }
}

@Suite struct DroppedWordTests {
    /// A dropped word reads in the JSON as the word it was, plus why it went; without a reason
    /// (a journal of an older build) it does not decode, so that chunk is recognised again.
    @Test func aDroppedWordIsTheWordAndItsReason() throws {
        let word = Word(text: "Thank", start: 3.5, end: 3.9, confidence: 0.4, tier: .modern, engine: "whisper")
        let data = try JSONEncoder().encode(DroppedWord(word, reason: .guessedPastWindow))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["text"] as? String == "Thank" && object["start"] as? Double == 3.5 && object["reason"] as? String == "guessedPastWindow")
        #expect(try JSONDecoder().decode(DroppedWord.self, from: data) == DroppedWord(word, reason: .guessedPastWindow))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DroppedWord.self, from: JSONEncoder().encode(word)) }
    }
}
