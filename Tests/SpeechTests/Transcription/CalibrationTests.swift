import CapforgeCore
import Foundation
import Speech
import Testing

@Suite struct CalibrationTests {
    @Test func fitIsMonotoneAndReflectsAccuracy() {
        // Words at raw 0.9 are right 90 % of the time, at 0.2 only 20 %: a well-behaved engine.
        var observations: [(raw: Double, correct: Bool)] = []
        for (raw, rate) in [(0.2, 0.2), (0.5, 0.5), (0.9, 0.9)] {
            for i in 0..<100 { observations.append((raw, Double(i) < rate * 100)) }
        }
        let c = ConfidenceCalibration.fit(observations, note: "synthetic")
        #expect(c.measured)
        #expect(abs(c(0.2) - 0.2) < 1e-9 && abs(c(0.9) - 0.9) < 1e-9)
        #expect(abs(c(0.7) - 0.7) < 1e-9, "interpolated between points")
        let grid = stride(from: 0.0, through: 1.0, by: 0.05).map { c($0) }
        #expect(zip(grid, grid.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func overconfidentEngineIsPulledDown() {
        let observations = (0..<200).map { i in (raw: 0.95, correct: i % 2 == 0) } + (0..<50).map { _ in (raw: 0.3, correct: false) }
        let c = ConfidenceCalibration.fit(observations, note: "synthetic")
        #expect(abs(c(0.95) - 0.5) < 1e-9)
        #expect(c(0.3) == 0)
    }

    @Test func unmeasuredIsIdentityAndMarked() {
        #expect(!ConfidenceCalibration.unmeasured.measured)
        #expect(ConfidenceCalibration.unmeasured(0.37) == 0.37)
        let word = Word(text: "x", start: 0, end: 1, confidence: 0.4, tier: .basic, engine: "unknown")
        #expect(CalibrationTable(engines: [:]).apply(to: [word], producedBy: EngineIdentity(engine: "unknown", tier: .basic, model: "m"))
            .first?.calibratedConfidence == 0.4)
    }

    @Test func calibrationIsChosenByEngineAndModel() {
        let halve = ConfidenceCalibration(points: [.init(raw: 0, calibrated: 0), .init(raw: 1, calibrated: 0.5)], measured: true, note: "tiny")
        let table = CalibrationTable(engines: ["whisper/tiny.en": halve])
        let word = Word(text: "x", start: 0, end: 1, confidence: 0.8, tier: .modern, engine: "whisper")
        func calibrated(_ model: String) -> Double? {
            table.apply(to: [word], producedBy: EngineIdentity(engine: "whisper", tier: .modern, model: model)).first?.calibratedConfidence
        }
        #expect(calibrated("tiny.en") == 0.4)
        // Another model is not measured by tiny.en's map: its raw confidence stands, marked unmeasured.
        #expect(calibrated("large-v3") == 0.8)
        #expect(!table[identity: EngineIdentity(engine: "whisper", tier: .modern, model: "large-v3")].measured)
    }

    @Test func evidenceCombinationScoresTheWordsEvidence() {
        // Only the least token probability counts here: score = sigmoid(2 + log(min p)).
        let combination = EvidenceCombination(
            intercept: 2, logMeanProbability: 0, logMinimumProbability: 1, segmentLogProbability: 0, tokenCount: 0,
            logSecondsPerLetter: 0)
        let identity = ConfidenceCalibration(points: ConfidenceCalibration.unmeasured.points, combination: combination, measured: true, note: "t")
        func word(minimum: Double?) -> Word {
            Word(text: "rhopa", start: 0, end: 0.5, confidence: 0.9, tier: .modern, engine: "whisper",
                 evidence: minimum.map { WordEvidence(minimumTokenProbability: $0, tokenCount: 2, segmentLogProbability: -0.2) })
        }
        let sure = identity(word(minimum: 0.9)), doubted = identity(word(minimum: 0.05))
        #expect(abs(sure - 1 / (1 + exp(-(2 + log(0.9))))) < 1e-9)
        #expect(doubted < 0.5 && sure > 0.85, "one doubtful token pulls a confident-on-average word down")
        #expect(identity(word(minimum: nil)) == 0.9, "a word without evidence is mapped by its raw confidence")
        // The shipped Whisper calibrations use evidence; PocketSphinx, which gives none, does not.
        #expect(MeasuredCalibration.table.engines["whisper/tiny.en"]?.combination != nil)
        #expect(MeasuredCalibration.table.engines["whisper/base"]?.combination != nil)
        #expect(MeasuredCalibration.table.engines["pocketsphinx/en-us"]?.combination == nil)
    }

    @Test func glossaryFixesCaseAndSpelling() {
        let glossary = Glossary(terms: ["Capforge", "Jane Austen", " ", "libass"])
        let words = ["capforge,", "uses", "LIBASS", "austen.", "jane"].enumerated().map {
            Word(text: $0.element, start: Double($0.offset), end: Double($0.offset) + 1, confidence: 1, tier: .modern, engine: "w")
        }
        #expect(glossary.apply(to: words).map(\.text) == ["Capforge,", "uses", "libass", "Austen.", "Jane"])
        #expect(glossary.prompt == "Glossary: Capforge, Jane Austen, libass.")
        #expect(Glossary(terms: []).prompt == nil)
    }
}
