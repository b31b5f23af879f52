import CapforgeCore
import Foundation
import Speech
import Testing

@Suite struct CrossCheckTests {
    /// Whisper-like words (with evidence), one a second from `start`.
    func words(_ text: String, from start: Double = 1, confidence: Double = 0.9, engine: String = "whisper") -> [Word] {
        text.split(separator: " ").enumerated().map { i, token in
            Word(text: String(token), start: start + Double(i), end: start + Double(i) + 0.8, confidence: confidence, tier: .modern,
                 engine: engine, evidence: WordEvidence(minimumTokenProbability: confidence, tokenCount: 1, segmentLogProbability: -0.2))
        }
    }

    func disputed(_ marked: [Word]) -> [String] { marked.filter { $0.evidence?.disputed == true }.map(\.text) }

    @Test func wordsTheSecondModelHeardElsewhereOrNotAtAllAreDisputed() {
        let marked = CrossCheck.marked(words("The cat sat on the mat."), against: words("the hat sat on mat"), language: .english)
        #expect(disputed(marked) == ["cat", "the"], "\(marked.map { ($0.text, $0.evidence?.disputed) })")
        #expect(marked.allSatisfy { $0.evidence?.disputed != nil })
        #expect(disputed(CrossCheck.marked(words("one two three"), against: [], language: .english)) == ["one", "two", "three"])
    }

    @Test func aRepeatedWordIsMatchedOncePerRepetition() {
        // "no" said four times, heard three times by the checker: exactly one is disputed.
        let marked = CrossCheck.marked(words("no no no no"), against: words("no no no"), language: .english)
        #expect(disputed(marked).count == 1)
    }

    @Test func theSameWordFarAwayInTimeIsNotTheSameWord() {
        let marked = CrossCheck.marked(words("hello world"), against: words("hello world", from: 8), language: .english)
        #expect(disputed(marked) == ["hello", "world"])
        let near = CrossCheck.marked(words("hello world"), against: words("hello world", from: 1.6), language: .english)
        #expect(disputed(near).isEmpty, "two models time a word apart by less than the tolerance")
    }

    @Test func englishNumbersMatchTheirWords() {
        #expect(disputed(CrossCheck.marked(words("Press 1. Then 21,"), against: words("press one then twentyone"), language: .english)).isEmpty)
        #expect(disputed(CrossCheck.marked(words("Drücken 1"), against: words("drücken eins"), language: Language("de")!)) == ["1"])
    }

    @Test func wordsWithoutEvidenceAreLeftUnchecked() {
        let basic = [Word(text: "tone", start: 1, end: 1.5, confidence: 0.5, tier: .basic, engine: "pocketsphinx")]
        #expect(CrossCheck.marked(basic, against: [], language: .english) == basic)
    }

    @Test func theVerdictMovesTheConfidenceByTheMeasuredRates() {
        let check = CrossCheckCalibration(disputedWhenRight: 0.05, disputedWhenWrong: 0.5, note: "synthetic")
        // Odds 9:1 times 0.05/0.5 = 0.9:1, and times 0.95/0.5 = 17.1:1.
        #expect(abs(check(0.9, disputed: true) - 0.9 / 1.9) < 1e-9)
        #expect(abs(check(0.9, disputed: false) - 17.1 / 18.1) < 1e-9)
        // Odds 99:1 (a calibrated 1 is a bin's rate, not certainty) times 0.1.
        #expect(abs(check(1, disputed: true) - 9.9 / 10.9) < 1e-9)
    }

    @Test func aPairNotMeasuredUsesThePooledRatesAndNoneMeansNoChange() {
        let tiny = EngineIdentity(engine: "whisper", tier: .modern, model: "tiny.en")
        let base = EngineIdentity(engine: "whisper", tier: .modern, model: "base")
        let small = EngineIdentity(engine: "whisper", tier: .modern, model: "small")
        let pair = CrossCheckCalibration(disputedWhenRight: 0.03, disputedWhenWrong: 0.6, note: "pair")
        let pooled = CrossCheckCalibration(disputedWhenRight: 0.04, disputedWhenWrong: 0.5, note: "pooled")
        let table = CalibrationTable(engines: [:], crossChecks: ["whisper/tiny.en checked by whisper/base": pair, "whisper checked by whisper": pooled])
        #expect(table.crossCheck(tiny, checkedBy: base) == pair)
        #expect(table.crossCheck(tiny, checkedBy: small) == pooled)
        var word = words("word")
        word[0].evidence?.disputed = true
        #expect(CalibrationTable(engines: [:]).apply(to: word, producedBy: tiny, checkedBy: base)[0].calibratedConfidence == 0.9)
        #expect(table.apply(to: word, producedBy: tiny, checkedBy: base)[0].calibratedConfidence! < 0.5)
        #expect(table.apply(to: word, producedBy: tiny)[0].calibratedConfidence == 0.9, "no checker: the verdict is not read")
    }

    // The transcriber: the checker hears each modern chunk again.

    let audio = burstAudio(seconds: 20, bursts: [(1, 6)])
    let english = TierPlan(language: .english, mode: .modern, basicFallback: true)
    let rates = CalibrationTable(engines: [:], crossChecks: [
        "whisper/scripted checked by whisper/checker": CrossCheckCalibration(disputedWhenRight: 0.05, disputedWhenWrong: 0.5, note: "synthetic"),
    ])

    func transcribe(checker: ScriptedEngine) throws -> Transcript {
        let primary = ScriptedEngine(calls: [words("the cat sat")])
        let engines = TierEngines(modern: [primary], basic: [], crossChecker: checker)
        return try ChunkedTranscriber(engines: engines, calibration: rates).transcribe(audio, plan: english)
    }

    @Test func theCheckersVerdictsAreCalibratedAndTheTranscriptSaysWhoChecked() throws {
        let t = try transcribe(checker: ScriptedEngine(model: "checker", calls: [words("the hat sat")]))
        #expect(t.checkedBy?.model == "checker")
        #expect(t.words.map(\.text) == ["the", "cat", "sat"])
        #expect(t.words.map { $0.evidence?.disputed } == [false, true, false])
        #expect(abs(t.words[1].score - 0.9 / 1.9) < 1e-9)
        #expect(abs(t.words[0].score - 17.1 / 18.1) < 1e-9)
        #expect(t.chunks.allSatisfy { $0.crossCheckError == nil && $0.tier == .modern })
    }

    @Test func aFailingCheckerLeavesTheWordsAsOneModelHeardThemAndSaysWhy() throws {
        let t = try transcribe(checker: ScriptedEngine(model: "checker", calls: [], failing: 0))
        #expect(t.checkedBy == nil)
        #expect(t.words.map(\.text) == ["the", "cat", "sat"])
        #expect(t.words.allSatisfy { $0.evidence?.disputed == nil && $0.score == 0.9 })
        #expect(t.chunks.map(\.tier) == [.modern], "a failed check is no reason to fall back")
        #expect(t.chunks[0].crossCheckError?.contains("scripted failure") == true)
    }

    @Test func aModelDoesNotCheckItself() throws {
        let primary = ScriptedEngine(calls: [words("the cat sat")])
        let engines = TierEngines(modern: [primary], basic: [], crossChecker: primary)
        let t = try ChunkedTranscriber(engines: engines, calibration: rates).transcribe(audio, plan: english)
        #expect(t.checkedBy == nil)
        #expect(t.words.allSatisfy { $0.evidence?.disputed == nil })
    }
}
