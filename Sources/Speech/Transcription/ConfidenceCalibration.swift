import CapforgeCore
import Foundation

/// Maps one engine's raw confidences to a shared 0...1 scale: the probability that a word with
/// that raw confidence is right, so engines become comparable.
public struct ConfidenceCalibration: Sendable, Equatable, Codable {
    /// Monotone (raw, calibrated) points; values between them are interpolated linearly.
    public var points: [Point]
    /// Where the engine gives word evidence, the points map this combination's score instead of
    /// the raw confidence.
    public var combination: EvidenceCombination?
    /// False for the un-measured fallback (identity); the run warns when it uses one.
    public var measured: Bool
    /// The languages of the speech it was measured on (ISO 639-1); a word of another language is
    /// mapped all the same, and the run says the map was not measured there.
    public var languages: [String]
    /// How and on what the points were measured.
    public var note: String

    public struct Point: Sendable, Equatable, Codable {
        public var raw: Double
        public var calibrated: Double

        public init(raw: Double, calibrated: Double) {
            self.raw = raw
            self.calibrated = calibrated
        }
    }

    public init(points: [Point], combination: EvidenceCombination? = nil, measured: Bool, languages: [String] = [], note: String) {
        self.points = points.sorted { $0.raw < $1.raw }
        self.combination = combination
        self.measured = measured
        self.languages = languages
        self.note = note
    }

    /// Un-measured fallback: raw confidence taken at face value.
    public static let unmeasured = ConfidenceCalibration(
        points: [Point(raw: 0, calibrated: 0), Point(raw: 1, calibrated: 1)], measured: false,
        note: "not measured: raw confidence used as is")

    /// The calibrated confidence of `word`. A word without evidence (from a journal written
    /// before evidence was kept) is mapped by its raw confidence, which is on the same 0...1 scale.
    public func callAsFunction(_ word: Word) -> Double {
        self(combination?.score(word) ?? word.confidence)
    }

    public func callAsFunction(_ raw: Double) -> Double {
        guard let first = points.first, let last = points.last else { return raw }
        if raw <= first.raw { return first.calibrated }
        if raw >= last.raw { return last.calibrated }
        let upper = points.firstIndex { $0.raw >= raw }!
        let a = points[upper - 1], b = points[upper]
        let t = b.raw == a.raw ? 1 : (raw - a.raw) / (b.raw - a.raw)
        return a.calibrated + t * (b.calibrated - a.calibrated)
    }

    /// Fits a monotone map by pool-adjacent-violators over (raw, correct) observations,
    /// collapsed to at most `bins` points.
    public static func fit(_ observations: [(raw: Double, correct: Bool)], bins: Int = 10, note: String) -> ConfidenceCalibration {
        let sorted = observations.sorted { $0.raw < $1.raw }
        guard !sorted.isEmpty else { return .unmeasured }
        // Each block: (sum of raw, sum of correct, count); merge while a block's rate exceeds the next's.
        var blocks: [(raw: Double, hits: Double, n: Double)] = []
        for o in sorted {
            blocks.append((o.raw, o.correct ? 1 : 0, 1))
            while blocks.count > 1, blocks[blocks.count - 2].hits / blocks[blocks.count - 2].n >= blocks[blocks.count - 1].hits / blocks[blocks.count - 1].n {
                let b = blocks.removeLast()
                let a = blocks.removeLast()
                blocks.append((a.raw + b.raw, a.hits + b.hits, a.n + b.n))
            }
        }
        var points = blocks.map { Point(raw: $0.raw / $0.n, calibrated: $0.hits / $0.n) }
        if points.count > bins {
            let stride = Double(points.count) / Double(bins)
            points = (0..<bins).map { points[min(points.count - 1, Int(Double($0) * stride))] } + [points.last!]
        }
        return ConfidenceCalibration(points: points, measured: true, note: note)
    }
}

/// A logistic model of whether a word is right, fitted by `Scripts/calibrate` on the word
/// evidence of one engine and model. Mean token probability alone told wrong Whisper words from
/// right ones with an AUROC of about 0.72 on held-out speech; the least probable token, the
/// segment's doubt, the token count (rare words split into many) and the time per letter (a
/// word squeezed or stretched against the audio) raise it to about 0.78.
public struct EvidenceCombination: Sendable, Equatable, Codable {
    public var intercept: Double
    public var logMeanProbability: Double
    public var logMinimumProbability: Double
    public var segmentLogProbability: Double
    public var tokenCount: Double
    public var logSecondsPerLetter: Double

    public init(
        intercept: Double, logMeanProbability: Double, logMinimumProbability: Double,
        segmentLogProbability: Double, tokenCount: Double, logSecondsPerLetter: Double
    ) {
        self.intercept = intercept
        self.logMeanProbability = logMeanProbability
        self.logMinimumProbability = logMinimumProbability
        self.segmentLogProbability = segmentLogProbability
        self.tokenCount = tokenCount
        self.logSecondsPerLetter = logSecondsPerLetter
    }

    /// The modelled probability that `word` is right; nil when the word carries no evidence.
    /// Scripts/calibrate computes the same features (keep the two in step).
    public func score(_ word: Word) -> Double? {
        guard let evidence = word.evidence else { return nil }
        func logProbability(_ p: Double) -> Double { log(max(p, 1e-6)) }
        let letters = max(1, word.text.filter { $0.isLetter || $0.isNumber }.count)
        let z = intercept
            + logMeanProbability * logProbability(word.confidence)
            + logMinimumProbability * logProbability(evidence.minimumTokenProbability)
            + segmentLogProbability * evidence.segmentLogProbability
            + tokenCount * Double(evidence.tokenCount)
            + logSecondsPerLetter * log(max(0.01, word.duration) / Double(letters))
        return 1 / (1 + exp(-z))
    }
}

/// What a cross-check's verdict says about a word, measured for one pair of models by
/// `Scripts/calibrate`: how often the second model disputes a right word and a wrong one. Bayes'
/// rule turns the first model's calibrated confidence into one given the verdict (the verdict
/// is taken as independent of the word's own evidence, once its rightness is known).
public struct CrossCheckCalibration: Sendable, Equatable, Codable {
    public var disputedWhenRight: Double
    public var disputedWhenWrong: Double
    /// How and on what the rates were measured.
    public var note: String

    public init(disputedWhenRight: Double, disputedWhenWrong: Double, note: String) {
        self.disputedWhenRight = disputedWhenRight
        self.disputedWhenWrong = disputedWhenWrong
        self.note = note
    }

    /// `confidence` (the probability that the word is right) once the verdict is known.
    public func callAsFunction(_ confidence: Double, disputed: Bool) -> Double {
        // A calibrated 0 or 1 is the rate of a bin of a few hundred words, not certainty: the
        // verdict still counts.
        let p = min(max(confidence, 0.01), 0.99)
        let likelihoodRatio = disputed ? disputedWhenRight / disputedWhenWrong : (1 - disputedWhenRight) / (1 - disputedWhenWrong)
        let odds = p / (1 - p) * likelihoodRatio
        return odds / (1 + odds)
    }
}

/// Calibrations by engine and model: "whisper/tiny.en" is not "whisper/base" (a larger model
/// is right more often at the same raw confidence). A key without a model ("vosk") covers every
/// model of that engine. A model with no entry is unmeasured: its raw confidence is used as is
/// and the run says so, rather than borrowing another model's map.
public struct CalibrationTable: Sendable, Equatable, Codable {
    public var engines: [String: ConfidenceCalibration]
    /// Cross-checks by pair ("whisper/tiny.en checked by whisper/base"); "whisper checked by
    /// whisper" pools the measured pairs and stands in for a pair not measured (the run says so).
    public var crossChecks: [String: CrossCheckCalibration]

    public init(engines: [String: ConfidenceCalibration], crossChecks: [String: CrossCheckCalibration] = [:]) {
        self.engines = engines
        self.crossChecks = crossChecks
    }

    public static func key(_ identity: EngineIdentity) -> String { "\(identity.engine)/\(identity.model)" }

    public static func key(_ identity: EngineIdentity, checkedBy checker: EngineIdentity) -> String {
        "\(key(identity)) checked by \(key(checker))"
    }

    public subscript(identity identity: EngineIdentity) -> ConfidenceCalibration {
        engines[Self.key(identity)] ?? engines[identity.engine] ?? .unmeasured
    }

    /// The measured pair, else the pooled measurement of the engines' pairs; nil when neither exists.
    public func crossCheck(_ identity: EngineIdentity, checkedBy checker: EngineIdentity) -> CrossCheckCalibration? {
        crossChecks[Self.key(identity, checkedBy: checker)] ?? crossChecks["\(identity.engine) checked by \(checker.engine)"]
    }

    /// `words` as produced by the engine and model `identity`, and cross-checked by `checker`
    /// when given (the words' `evidence.disputed` holds its verdicts).
    public func apply(to words: [Word], producedBy identity: EngineIdentity, checkedBy checker: EngineIdentity? = nil) -> [Word] {
        let calibration = self[identity: identity]
        let crossCheck = checker.flatMap { self.crossCheck(identity, checkedBy: $0) }
        return words.map { word in
            var calibrated = word
            let confidence = calibration(word)
            if let crossCheck, let disputed = word.evidence?.disputed {
                calibrated.calibratedConfidence = crossCheck(confidence, disputed: disputed)
            } else {
                calibrated.calibratedConfidence = confidence
            }
            return calibrated
        }
    }
}
