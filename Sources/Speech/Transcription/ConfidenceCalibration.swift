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
    /// False for the un-measured fallback (identity); reports say which one was used.
    public var measured: Bool
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

    public init(points: [Point], combination: EvidenceCombination? = nil, measured: Bool, note: String) {
        self.points = points.sorted { $0.raw < $1.raw }
        self.combination = combination
        self.measured = measured
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

/// Calibrations by engine and model: "whisper/tiny.en" is not "whisper/base" (a larger model
/// is right more often at the same raw confidence). A key without a model ("vosk") covers every
/// model of that engine. A model with no entry is unmeasured: its raw confidence is used as is
/// and reports say so, rather than borrowing another model's map.
public struct CalibrationTable: Sendable, Equatable, Codable {
    public var engines: [String: ConfidenceCalibration]

    public init(engines: [String: ConfidenceCalibration]) {
        self.engines = engines
    }

    public static func key(_ identity: EngineIdentity) -> String { "\(identity.engine)/\(identity.model)" }

    public subscript(identity identity: EngineIdentity) -> ConfidenceCalibration {
        engines[Self.key(identity)] ?? engines[identity.engine] ?? .unmeasured
    }

    /// `words` as produced by the engine and model `identity`.
    public func apply(to words: [Word], producedBy identity: EngineIdentity) -> [Word] {
        let calibration = self[identity: identity]
        return words.map { word in
            var calibrated = word
            calibrated.calibratedConfidence = calibration(word)
            return calibrated
        }
    }
}
