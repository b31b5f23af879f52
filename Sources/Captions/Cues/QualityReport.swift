import CapforgeCore
import Foundation

/// How a caption file measures up, for the JSON output and a short text summary.
public struct QualityReport: Codable, Sendable, Equatable {
    public struct Percentiles: Codable, Sendable, Equatable {
        public var p50: Double
        public var p90: Double
        public var max: Double
    }

    public struct Warning: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable {
            /// The same line in several cues in a row: a typical recogniser loop.
            case repeatedLine = "repeated-line"
            /// A long cue with little text: typical of text invented over silence or music.
            case sparseLongCue = "sparse-long-cue"
            /// An English cue or line that ends on a word leaning on the next ("…the", "…and").
            case phraseSplit = "phrase-split"
        }
        public var kind: Kind
        public var cue: Int
        public var message: String
    }

    static let repeatRun = 3
    static let sparseDuration = 4000
    /// A long cue read at under this share of its profile's top reading speed is sparse: 4
    /// characters/s in English, 1.8 in Chinese (where 16 characters over 4.8 s is ordinary speech).
    static let sparseShare = 0.2

    public var cueCount: Int
    /// Count of cues breaking each rule; every rule is listed.
    public var violations: [String: Int]
    public var charactersPerSecond: Percentiles?
    /// Share of words scoring below the low-confidence threshold; nil without words.
    public var lowConfidenceShare: Double?
    /// Share of speech time recognised by each tier.
    public var speechShareByTier: [String: Double]
    public var warnings: [Warning]

    public init(cues: [Cue], words: [Word], rules: CueRules, lowConfidenceThreshold: Double) {
        cueCount = cues.count
        var counts = Dictionary(uniqueKeysWithValues: LintRule.allCases.map { ($0.rawValue, 0) })
        for violation in rules.violations(in: cues) { counts[violation.rule.rawValue, default: 0] += 1 }
        violations = counts
        let speeds = cues.filter { $0.duration > 0 }
            .map { rules.profile.readingLength($0.lines) * 1000 / Double($0.duration) }.sorted()
        charactersPerSecond = speeds.isEmpty ? nil : Percentiles(
            p50: Self.rounded(Self.percentile(speeds, 0.5)), p90: Self.rounded(Self.percentile(speeds, 0.9)), max: Self.rounded(speeds.last!))
        lowConfidenceShare = words.isEmpty ? nil
            : Self.rounded(Double(words.filter { $0.score < lowConfidenceThreshold }.count) / Double(words.count))
        let seconds = words.reduce(into: [Tier: Double]()) { $0[$1.tier, default: 0] += max(0, $1.duration) }
        let total = seconds.values.reduce(0, +)
        speechShareByTier = Dictionary(uniqueKeysWithValues: Tier.allCases.map { ($0.rawValue, total > 0 ? Self.rounded((seconds[$0] ?? 0) / total) : 0) })
        warnings = Self.repeatedLines(cues) + Self.sparseCues(cues, profile: rules.profile)
    }

    public var violationCount: Int { violations.values.reduce(0, +) }

    /// A few lines for a terminal.
    public var summary: String {
        var lines = ["\(cueCount) cues, \(violationCount) rule violations"]
        let broken = violations.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        if !broken.isEmpty { lines.append("  " + broken.map { "\($0.key): \($0.value)" }.joined(separator: ", ")) }
        if let cps = charactersPerSecond {
            lines.append(String(format: "  reading speed: median %.1f, 90th percentile %.1f, max %.1f characters/s", cps.p50, cps.p90, cps.max))
        }
        if let low = lowConfidenceShare { lines.append(String(format: "  low-confidence words: %.1f%%", low * 100)) }
        let tiers = Tier.allCases.map { String(format: "%@ %.1f%%", $0.rawValue, (speechShareByTier[$0.rawValue] ?? 0) * 100) }
        lines.append("  speech by tier: " + tiers.joined(separator: ", "))
        lines += warnings.map { "  warning: cue \($0.cue): \($0.message)" }
        return lines.joined(separator: "\n")
    }

    private static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    private static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    private static func repeatedLines(_ cues: [Cue]) -> [Warning] {
        var run = RepeatRun()
        return cues.enumerated().compactMap { run.add($1, number: $0 + 1) } + [run.finish()].compactMap { $0 }
    }

    /// Runs of cues with the same text, a cue at a time (cue numbers from 1).
    struct RepeatRun {
        private var first: (number: Int, cue: Cue, key: String)?
        private var length = 0

        /// The warning for the run `cue` ends, if it ends one long enough.
        mutating func add(_ cue: Cue, number: Int) -> Warning? {
            let key = cue.text.spellingKey
            if let first, first.key == key {
                length += 1
                return nil
            }
            defer { first = (number, cue, key); length = 1 }
            return finish()
        }

        func finish() -> Warning? {
            guard let first, length >= repeatRun, !first.key.isEmpty else { return nil }
            return Warning(kind: .repeatedLine, cue: first.number,
                           message: "\"\(first.cue.lines.joined(separator: " "))\" repeats in \(length) cues in a row; the recogniser may have looped")
        }
    }

    private static func sparseCues(_ cues: [Cue], profile: CaptionProfile) -> [Warning] {
        cues.enumerated().compactMap { sparse($1, number: $0 + 1, profile: profile) }
    }

    /// The warning for a long cue with little text (cue numbers from 1).
    static func sparse(_ cue: Cue, number: Int, profile: CaptionProfile) -> Warning? {
        let speed = profile.readingLength(cue.lines) * 1000 / Double(max(cue.duration, 1))
        guard cue.duration >= sparseDuration && speed < sparseShare * profile.maxCharactersPerSecond else { return nil }
        return Warning(kind: .sparseLongCue, cue: number,
                       message: String(format: "%.1f s for only \"%@\"; text over silence or music may be invented", Double(cue.duration) / 1000, cue.text.replacingOccurrences(of: "\n", with: " ")))
    }
}
