import CapforgeCore
import Foundation

/// The result of checking one subtitle file against a profile.
public struct LintReport: Sendable {
    public var file: URL
    public var document: SubtitleDocument
    public var profile: CaptionProfile
    public var framesPerSecond: Double
    public var violations: [LintViolation]
    public var quality: QualityReport

    public var passed: Bool { violations.isEmpty }

    /// One line per violation with cue number and time, then a count by rule.
    public var formatted: String {
        let header = "\(file.path): \(document.cues.count) cues, \(document.format.rawValue.uppercased()) (\(document.encoding.rawValue)), profile \(profile.name) at \(framesPerSecond.formatted()) fps"
        var lines = [header]
        for violation in violations {
            let time = "\(Timecode.milliseconds(violation.start, mark: ",")) --> \(Timecode.milliseconds(violation.end, mark: ","))"
            lines.append("  cue \(violation.cue) \(time)  \(violation.rule.rawValue): \(violation.message)")
        }
        if passed {
            lines.append("  no violations")
        } else {
            let counts = Dictionary(grouping: violations, by: \.rule).sorted { $0.key < $1.key }
            lines.append("  \(violations.count) violations (" + counts.map { "\($0.key.rawValue) \($0.value.count)" }.joined(separator: ", ") + ")")
        }
        lines += quality.warnings.map { "  warning: cue \($0.cue): \($0.message)" }
        return lines.joined(separator: "\n")
    }
}

/// Checks SRT, WebVTT and ASS files from any tool against a caption profile.
public enum Lint {
    public static func check(fileAt url: URL, profile: CaptionProfile = .netflixEnglish, fps: Double? = nil) throws -> LintReport {
        let rules = try CueRules(profile: profile, framesPerSecond: fps)
        let document = try SubtitleReader.read(fileAt: url)
        let violations = rules.violations(in: document.cues)
        let quality = QualityReport(cues: document.cues, words: [], rules: rules, lowConfidenceThreshold: Confidence.defaultThreshold)
        return LintReport(file: url, document: document, profile: profile, framesPerSecond: rules.timing.framesPerSecond,
                          violations: violations, quality: quality)
    }

    /// A built-in profile by name, or a JSON profile file when the argument names one.
    public static func profile(named nameOrPath: String) throws -> CaptionProfile {
        if CaptionProfile.builtIn.contains(where: { $0.name == nameOrPath.lowercased() }) {
            return try CaptionProfile.named(nameOrPath)
        }
        if nameOrPath.hasSuffix(".json") || FileManager.default.fileExists(atPath: nameOrPath) {
            return try CaptionProfile.load(from: URL(fileURLWithPath: nameOrPath))
        }
        return try CaptionProfile.named(nameOrPath)
    }
}
