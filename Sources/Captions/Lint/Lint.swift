import CapforgeCore
import Foundation

/// The result of checking one subtitle file against a profile. Read cue by cue, so only the
/// counts and the first `Lint.listLimit` violations and warnings are kept: a file of a million
/// broken cues is reported in the memory of a small one.
public struct LintReport: Sendable {
    public var file: URL
    public var format: SubtitleFormat
    public var encoding: TextEncoding
    public var cueCount: Int
    public var profile: CaptionProfile
    /// What is known of the video the captions are for.
    public var video: LintVideo?
    public var framesPerSecond: Double
    /// The first violations in cue order (at most the limit `check` was given).
    public var violations: [LintViolation]
    /// Every violation, counted by rule.
    public var violationCounts: [LintRule: Int]
    /// The first warnings in cue order (said, not counted as violations).
    public var warnings: [QualityReport.Warning]
    public var warningCount: Int
    /// What reading the file assumed or left out.
    public var readingWarnings: [String] = []

    public var violationCount: Int { violationCounts.values.reduce(0, +) }
    public var passed: Bool { violationCount == 0 }

    /// One line per violation with cue number and time, then a count by rule. Names and
    /// messages (which quote the file's text) are shown with their control characters escaped:
    /// each stays on its line.
    public var formatted: String {
        let header = "\(ControlCharacters.escaped(file.path)): \(cueCount) cues, \(format.rawValue.uppercased()) (\(encoding.rawValue)), profile \(profile.name) at \(framesPerSecond.formatted()) fps"
            + (video.map { " (video \(ControlCharacters.escaped($0.name))" + ($0.duration.map { ", \(Timecode.milliseconds(Int(($0 * 1000).rounded()), mark: ","))" } ?? "") + ")" }
                ?? " (no video given or found beside it)")
        var lines = [header]
        lines += video?.frameRateWarning.map { ["  warning: \($0)"] } ?? []
        lines += readingWarnings.map { "  warning: \($0)" }
        for violation in violations {
            let time = "\(Timecode.milliseconds(violation.start, mark: ",")) --> \(Timecode.milliseconds(violation.end, mark: ","))"
            lines.append("  cue \(violation.cue) \(time)  \(violation.rule.rawValue): \(ControlCharacters.escaped(violation.message))")
        }
        if violationCount > violations.count {
            lines.append("  … \(violationCount - violations.count) more violations not listed (the first \(violations.count) are; --list N shows more)")
        }
        if passed {
            lines.append("  no violations")
        } else {
            let counts = violationCounts.filter { $0.value > 0 }.sorted { $0.key < $1.key }
            lines.append("  \(violationCount) violations (" + counts.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ") + ")")
        }
        lines += warnings.map { "  warning: cue \($0.cue): \(ControlCharacters.escaped($0.message))" }
        if warningCount > warnings.count { lines.append("  … \(warningCount - warnings.count) more warnings not listed") }
        return lines.joined(separator: "\n")
    }
}

/// The video a subtitle file is checked for: its name, frame rate and duration as probed.
public struct LintVideo: Sendable, Equatable {
    public var name: String
    /// nil when the video's claim is not plausible (the default rate applies).
    public var framesPerSecond: Double?
    /// What the video claims, when that is not plausible or may not hold throughout.
    public var claimedFramesPerSecond: Double?
    public var variableFrameRate: Bool
    public var duration: Double?
    /// Its shot changes (seconds), when they were looked for.
    public var shotChanges: [Double]?

    public init(name: String, framesPerSecond: Double?, variableFrameRate: Bool = false, duration: Double?, shotChanges: [Double]? = nil) {
        self.name = name
        self.shotChanges = shotChanges
        self.framesPerSecond = FrameTiming.plausible(framesPerSecond)
        self.claimedFramesPerSecond = framesPerSecond
        self.variableFrameRate = variableFrameRate
        self.duration = duration
    }

    /// What is wrong with the video's frame rate and what is used instead; nil when nothing is.
    public var frameRateWarning: String? {
        if let claimed = claimedFramesPerSecond, framesPerSecond == nil {
            return String(format: "the video claims %g frames per second, outside the %g–%g fps at which frame gaps mean what a caption profile asks; frame gaps are judged at %g fps (--fps N sets the rate)",
                          claimed, FrameTiming.plausibleRates.lowerBound, FrameTiming.plausibleRates.upperBound, FrameTiming.fallbackRate)
        }
        if variableFrameRate, let rate = framesPerSecond {
            return String(format: "the video's frame rate varies; frame gaps are judged at its average, %g fps (--fps N sets the rate)", rate)
        }
        return nil
    }
}

/// Checks SRT, WebVTT and ASS files from any tool against a caption profile.
public enum Lint {
    /// Violations (and warnings) listed by default; the rest are counted.
    public static let listLimit = 1000

    /// `fps` given wins over the video's own rate. `profile` nil: the one for the file's language,
    /// which its name gives (`talk.ja.srt`), else English. `listing`: how many violations and
    /// warnings to keep (nil: all).
    public static func check(fileAt url: URL, profile given: CaptionProfile? = nil, fps: Double? = nil, video: LintVideo? = nil,
                             listing: Int? = listLimit) throws -> LintReport {
        try check(url, profile: given, fps: fps, video: video, listing: listing) { try SubtitleReader.forEachCue(fileAt: url, $0) }
    }

    /// `check` with the file's cues from `read` (which says how it read them).
    static func check(_ url: URL, profile given: CaptionProfile?, fps: Double?, video: LintVideo?, listing: Int?,
                      read: ((Cue) throws -> Void) throws -> (format: SubtitleFormat, encoding: TextEncoding, warnings: [String])) throws -> LintReport {
        let language = Language(url.deletingPathExtension().pathExtension) ?? .english
        let profile = given ?? CaptionProfile.forLanguage(language)
        let step = SubtitleFormats.reading(fileExtension: url.pathExtension)?.timeStep ?? 1
        let rules = try CueRules(profile: profile, framesPerSecond: fps ?? video?.framesPerSecond, resolution: step)
        var checker = CueChecker(rules: rules, breakRules: BreakRules.forLanguage(language), videoEnd: video?.duration, listing: listing,
                                 shots: video?.shotChanges.map { ShotTiming(changes: $0, rules: rules) })
        let read = try read { checker.add($0) }
        checker.finish()
        return LintReport(file: url, format: read.format, encoding: read.encoding, cueCount: checker.count, profile: profile, video: video,
                          framesPerSecond: rules.timing.framesPerSecond, violations: checker.violations, violationCounts: checker.counts,
                          warnings: checker.warnings, warningCount: checker.warningCount, readingWarnings: read.warnings)
    }

    /// The rules applied a cue at a time, keeping only the cue before (for gaps and order) and
    /// the run of repeated lines it ends.
    struct CueChecker {
        let rules: CueRules
        let breakRules: BreakRules?
        let videoEnd: Double?
        let listing: Int?
        let shots: ShotTiming?
        private(set) var count = 0
        private(set) var violations: [LintViolation] = []
        private(set) var counts: [LintRule: Int] = [:]
        private(set) var warnings: [QualityReport.Warning] = []
        private(set) var warningCount = 0
        private var previous: Cue?
        private var repeats = QualityReport.RepeatRun()

        init(rules: CueRules, breakRules: BreakRules?, videoEnd: Double?, listing: Int?, shots: ShotTiming? = nil) {
            self.rules = rules
            self.breakRules = breakRules
            self.videoEnd = videoEnd
            self.listing = listing
            self.shots = shots
        }

        mutating func add(_ cue: Cue) {
            count += 1
            if let previous {
                // In cue order, each cue's own violations first as the rules found them.
                close(previous, number: count - 1, next: cue)
                if cue.start < previous.start {
                    record(.outOfOrder, cue, number: count, String(format: "starts at %@, before the cue before it (%@); players that read cues in order may skip it",
                                                                   Timecode.milliseconds(cue.start, mark: ","), Timecode.milliseconds(previous.start, mark: ",")))
                }
            }
            previous = cue
            note(repeats.add(cue, number: count))
            note(QualityReport.sparse(cue, number: count, profile: rules.profile))
            if let breakRules {
                let breaker = LineBreaker(maxWidth: rules.profile.lineColumns, maxLines: rules.profile.maxLines, rules: breakRules)
                phraseSplits(cue, number: count, breaker: breaker).forEach { note($0) }
            }
        }

        mutating func finish() {
            if let previous { close(previous, number: count, next: nil) }
            note(repeats.finish())
        }

        /// The cue's own rules, its gap to the next (when in order), and the video's end.
        private mutating func close(_ cue: Cue, number: Int, next: Cue?) {
            var found: [(LintRule, String)] = []
            rules.check(cue) { found.append(($0, $1)) }
            if let next, next.start >= cue.start { rules.checkGap(after: cue, before: next) { found.append(($0, $1)) } }
            if let videoEnd, let beyond = Lint.beyond(duration: videoEnd, cue: cue, frameMs: 1000 / rules.timing.framesPerSecond) {
                found.append((.beyondVideo, beyond))
            }
            found += (shots?.problems(cue) ?? []).map { (.shotChange, $0) }
            for (rule, message) in found { record(rule, cue, number: number, message) }
        }

        private mutating func record(_ rule: LintRule, _ cue: Cue, number: Int, _ message: String) {
            counts[rule, default: 0] += 1
            if listing.map({ violations.count < $0 }) ?? true {
                violations.append(LintViolation(rule: rule, cue: number, start: cue.start, end: cue.end, message: message))
            }
        }

        private mutating func note(_ warning: QualityReport.Warning?) {
            guard let warning else { return }
            warningCount += 1
            if listing.map({ warnings.count < $0 }) ?? true { warnings.append(warning) }
        }
    }

    /// Cue and line ends that leave a phrase open. Said, not counted as violations: a cue too
    /// long for any other break may need one. A line end Capforge's own breaker (`breaker`, the
    /// profile's) could not avoid either is said to be unavoidable.
    static func phraseSplits(_ cue: Cue, number: Int, breaker: LineBreaker) -> [QualityReport.Warning] {
        guard let rules = breaker.rules else { return [] }
        let lineEnds = LineBreaker.openLineEnds(cue.lines, rules: rules)
        let forced = lineEnds.isEmpty ? false : breaker.mustLeaveLineOpen(cue.lines) == true
        func warning(_ place: String, _ line: String, _ note: String = "") -> QualityReport.Warning {
            let last = line.split(separator: " ").last.map(String.init) ?? ""
            return QualityReport.Warning(kind: .phraseSplit, cue: number, message: "\(place) ends on \u{201C}\(last)\u{201D}, leaving its phrase to what follows\(note)")
        }
        var warnings = lineEnds.map { index in
            warning("line \(index + 1)", cue.lines[index], forced ? "; no break within \(breaker.maxWidth) columns avoids it" : "")
        }
        if let line = cue.lines.last, let last = line.split(separator: " ").last, rules.leavesPhraseOpen(String(last)) {
            warnings.append(warning("the cue", line))
        }
        return warnings
    }

    /// What is wrong with a cue that ends more than a frame after the video (shown over
    /// nothing, or never); nil when it does not.
    static func beyond(duration: Double, cue: Cue, frameMs: Double) -> String? {
        let end = Int((duration * 1000).rounded())
        guard Double(cue.end - end) > frameMs else { return nil }
        return String(format: "ends %.2f s after the video (%@)", Double(cue.end - end) / 1000, Timecode.milliseconds(end, mark: ","))
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
