import Testing
@testable import Speech

@Suite struct NonSpeechWordTests {
    private func words(_ tokens: [(Int32, String)]) -> [String] {
        let segment = DecodedSegment(start: 0, end: 1000, noSpeechProbability: 0, tokens: tokens.enumerated().map { i, token in
            WordAssemblyTests.token(token.0, token.1, Int64(i * 50), Int64(i * 50 + 50))
        })
        return WordAssembler.words(in: [segment], endOfText: WordAssemblyTests.eot, timing: .tokens, origin: 0, audioEnd: 10).map(\.text)
    }

    @Test func musicNotesAreNotWords() {
        #expect(words([(1, " ♪"), (2, "♪")]).isEmpty)
        #expect(words([(3, " Hello"), (1, " ♪♪"), (4, " world")]) == ["Hello", "world"])
    }

    @Test func barePunctuationJoinsThePreviousWord() {
        #expect(words([(3, " Well"), (5, " ..."), (4, " maybe"), (6, " ?")]) == ["Well...", "maybe?"])
        #expect(words([(5, " ..."), (4, " maybe")]) == ["maybe"])
    }

    @Test func wordsWithDigitsOrLettersStay() {
        #expect(words([(7, " 1984"), (8, " $"), (9, "5"), (10, " é")]) == ["1984", "$5", "é"])
    }
}
