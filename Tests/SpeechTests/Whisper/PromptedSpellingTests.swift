import CapforgeCore
import Testing
@testable import Speech

@Suite struct PromptedSpellingTests {
    /// Words 0.5 s apart from `start`, as a decoding would give them.
    private func words(_ text: String, from start: Double = 0, confidence: Double = 0.9) -> [Word] {
        text.split(separator: " ").enumerated().map { index, word in
            let t = start + Double(index) * 0.5
            return Word(text: String(word), start: t, end: t + 0.4, confidence: confidence, tier: .modern, engine: "whisper")
        }
    }

    private let prompt = "Glossary: ill-disposed, Dashwood."

    @Test func aPromptRespellsAShortStretchWithAWordOfItsOwn() {
        let plain = words("he was not an old sposed young man")
        let prompted = words("He was not an ill-disposed young man.", confidence: 0.5)
        let result = PromptedSpelling.respelled(plain, by: prompted, prompt: prompt, language: .english)
        #expect(result.map(\.text) == ["he", "was", "not", "an", "ill-disposed", "young", "man"])
        // The respelt word takes the time of the words it replaces and the prompted decoding's confidence.
        let respelt = result[4]
        #expect(respelt.start == plain[4].start && respelt.end == plain[5].end && respelt.confidence == 0.5)
    }

    @Test func aPromptNeverDropsOrAddsWhatTheUnpromptedDecodingHeard() {
        // Prompted, Whisper skipped a phrase and invented a term where nothing differs.
        let plain = words("mister john dash wood had then leisure to consider how much")
        let prompted = words("Mister John Dashwood had then Dashwood how much")
        let result = PromptedSpelling.respelled(plain, by: prompted, prompt: prompt, language: .english)
        #expect(result.map(\.text) == ["mister", "john", "Dashwood", "had", "then", "leisure", "to", "consider", "how", "much"])
        // A stretch it differs over without a word of the prompt stays as first heard.
        let other = PromptedSpelling.respelled(words("press one for help"), by: words("press 1 four help"), prompt: prompt, language: .english)
        #expect(other.map(\.text) == ["press", "one", "for", "help"])
    }

    @Test func aLongStretchIsNotASpelling() {
        let plain = words("so many words right here go on")
        let prompted = words("so ill-disposed a day it was indeed here go on")
        #expect(PromptedSpelling.respelled(plain, by: prompted, prompt: prompt, language: .english).map(\.text) == plain.map(\.text))
    }
}
