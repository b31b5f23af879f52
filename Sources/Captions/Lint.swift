import CapforgeCore
import Foundation

/// The result of checking one subtitle file against a profile.
public struct LintReport: Sendable {
    public var file: URL
    public var document: SubtitleDocument
    public var profile: CaptionProfile
    /// What is known of the video the captions are for.
    public var video: LintVideo?
    public var framesPerSecond: Double
    public var violations: [LintViolation]
    public var quality: QualityReport

    public var passed: Bool { violations.isEmpty }

    /// One line per violation with cue number and time, then a count by rule.
    public var formatted: String {
        let header = "\(file.path): \(document.cues.count) cues, \(document.format.rawValue.uppercased()) (\(document.encoding.rawValue)), profile \(profile.name) at \(framesPerSecond.formatted()) fps"
            + (video.map { " (video \($0.name)" + ($0.duration.map { ", \(Timecode.milliseconds(Int(($0 * 1000).rounded()), mark: ","))" } ?? "") + ")" }
                ?? " (no video given or found beside it)")
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

/// The video a subtitle file is checked for: its name, frame rate and duration as probed.
public struct LintVideo: Sendable, Equatable {
    public var name: String
    /// nil when the video's claim is not plausible (the default rate applies).
    public var framesPerSecond: Double?
    public var duration: Double?

    public init(name: String, framesPerSecond: Double?, duration: Double?) {
        self.name = name
        self.framesPerSecond = FrameTiming.plausible(framesPerSecond)
        self.duration = duration
    }
}

/// Checks SRT, WebVTT and ASS files from any tool against a caption profile.
public enum Lint {
    /// `fps` given wins over the video's own rate. `profile` nil: the one for the file's language,
    /// which its name gives (`talk.ja.srt`), else English.
    public static func check(fileAt url: URL, profile given: CaptionProfile? = nil, fps: Double? = nil, video: LintVideo? = nil) throws -> LintReport {
        let document = try SubtitleReader.read(fileAt: url)
        let language = Language(url.deletingPathExtension().pathExtension) ?? .english
        let profile = given ?? CaptionProfile.forLanguage(language)
        // ASS times are centiseconds: a two-frame gap at 24 fps (83.3 ms) can only be written as 80 or 90 ms.
        let rules = try CueRules(profile: profile, framesPerSecond: fps ?? video?.framesPerSecond, resolution: document.format == .ass ? 10 : 1)
        var violations = rules.violations(in: document.cues)
        if let duration = video?.duration {
            // In cue order, each cue's own violations first as the rules found them.
            violations = (violations + beyond(duration: duration, cues: document.cues, frameMs: 1000 / rules.timing.framesPerSecond))
                .enumerated().sorted { ($0.element.cue, $0.offset) < ($1.element.cue, $1.offset) }.map(\.element)
        }
        var quality = QualityReport(cues: document.cues, words: [], rules: rules, lowConfidenceThreshold: Confidence.defaultThreshold)
        if let rules = BreakRules.forLanguage(language) { quality.warnings += phraseSplits(document.cues, rules: rules) }
        return LintReport(file: url, document: document, profile: profile, video: video, framesPerSecond: rules.timing.framesPerSecond,
                          violations: violations, quality: quality)
    }

    /// Cue and line ends that leave a phrase open. Said, not counted as violations: a cue too
    /// long for any other break may need one.
    static func phraseSplits(_ cues: [Cue], rules: BreakRules) -> [QualityReport.Warning] {
        cues.enumerated().flatMap { index, cue in
            cue.lines.enumerated().compactMap { number, line -> QualityReport.Warning? in
                guard let last = line.split(separator: " ").last.map(String.init), rules.leavesPhraseOpen(last) else { return nil }
                let place = number == cue.lines.count - 1 ? "the cue" : "line \(number + 1)"
                return QualityReport.Warning(kind: .phraseSplit, cue: index + 1,
                                             message: "\(place) ends on \u{201C}\(last)\u{201D}, leaving its phrase to what follows")
            }
        }
    }

    /// Cues that end more than a frame after the video: shown over nothing, or never.
    static func beyond(duration: Double, cues: [Cue], frameMs: Double) -> [LintViolation] {
        let end = Int((duration * 1000).rounded())
        return cues.enumerated().compactMap { index, cue in
            guard Double(cue.end - end) > frameMs else { return nil }
            return LintViolation(rule: .beyondVideo, cue: index + 1, start: cue.start, end: cue.end,
                                 message: String(format: "ends %.2f s after the video (%@)", Double(cue.end - end) / 1000, Timecode.milliseconds(end, mark: ",")))
        }
    }

    /// A built-in profile by name, or a JSON profile file when the argument names one; nil for
    /// `auto` (each file's language decides).
    public static func profile(named nameOrPath: String) throws -> CaptionProfile? {
        if nameOrPath.lowercased() == CaptionProfile.automaticName { return nil }
        if CaptionProfile.builtIn.contains(where: { $0.name == nameOrPath.lowercased() }) {
            return try CaptionProfile.named(nameOrPath)
        }
        if nameOrPath.hasSuffix(".json") || FileManager.default.fileExists(atPath: nameOrPath) {
            return try CaptionProfile.load(from: URL(fileURLWithPath: nameOrPath))
        }
        return try CaptionProfile.named(nameOrPath)
    }
}
