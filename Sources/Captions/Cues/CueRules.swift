import CapforgeCore
import Foundation

/// The profile's rules as checks on finished cues, shared by the builder (to verify its own
/// output) and `Lint` (for any file).
public struct CueRules: Sendable {
    public let profile: CaptionProfile
    public let timing: FrameTiming

    /// `resolution`: the precision of the times checked, in milliseconds (ASS keeps centiseconds).
    public init(profile: CaptionProfile, framesPerSecond: Double?, resolution: Double = 1) throws {
        self.profile = profile
        self.timing = try FrameTiming(framesPerSecond: framesPerSecond, profile: profile, resolution: resolution)
    }

    /// Shortest duration the builder gives a cue: minimum display time and reading speed.
    func requiredDuration(lines: [String]) -> Int {
        let characters = profile.readingLength(lines)
        var required = max(profile.minDuration.rounded(.up), (characters * 1000 / profile.maxCharactersPerSecond).rounded(.up))
        if let wpm = profile.maxWordsPerMinute {
            required = max(required, (Double(TextMetrics.wordCount(lines)) * 60_000 / wpm).rounded(.up))
        }
        return Int(required)
    }

    var longestDuration: Int { Int(profile.maxDuration.rounded(.down)) }

    /// Violations in cues sorted by start time.
    public func violations(in cues: [Cue]) -> [LintViolation] {
        var found: [LintViolation] = []
        for (index, cue) in cues.enumerated() {
            func add(_ rule: LintRule, _ message: String) {
                found.append(LintViolation(rule: rule, cue: index + 1, start: cue.start, end: cue.end, message: message))
            }
            check(cue, add: add)
            if index + 1 < cues.count {
                checkGap(after: cue, before: cues[index + 1], add: add)
            }
        }
        return found
    }

    func check(_ cue: Cue, add: (LintRule, String) -> Void) {
        let lines = cue.lines
        if lines.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            add(.emptyCue, "cue has no text")
            return
        }
        if lines.count > profile.maxLines {
            add(.tooManyLines, "\(lines.count) lines; at most \(profile.maxLines) allowed")
        }
        for line in lines {
            let length = profile.length(of: line)
            if length > Double(profile.maxCharactersPerLine) {
                add(.lineTooLong, "line of \(length.formatted()) characters; at most \(profile.maxCharactersPerLine): \"\(line)\"")
            }
        }
        let duration = cue.duration
        if Double(duration) < profile.minDuration.rounded(.down) {
            add(.durationTooShort, "shown for \(duration) ms; at least \(Int(profile.minDuration.rounded(.up))) ms needed")
        }
        if Double(duration) > profile.maxDuration.rounded(.up) {
            add(.durationTooLong, "shown for \(duration) ms; at most \(longestDuration) ms allowed")
        }
        guard duration > 0 else { return }
        let characters = profile.readingLength(lines)
        if characters * 1000 > profile.maxCharactersPerSecond * Double(duration) + 1e-6 {
            let speed = characters * 1000 / Double(duration)
            add(.readingSpeed, String(format: "%.1f characters per second; at most %g", speed, profile.maxCharactersPerSecond))
        }
        if let wpm = profile.maxWordsPerMinute {
            let words = Double(TextMetrics.wordCount(lines))
            if words * 60_000 > wpm * Double(duration) + 1e-6 {
                add(.wordsPerMinute, String(format: "%.0f words per minute; at most %g", words * 60_000 / Double(duration), wpm))
            }
        }
    }

    func checkGap(after cue: Cue, before next: Cue, add: (LintRule, String) -> Void) {
        let gap = next.start - cue.end
        let frames = String(format: "%.1f", Double(gap) * timing.framesPerSecond / 1000)
        if gap < 0 {
            add(.overlap, "overlaps the next cue by \(-gap) ms")
        } else if timing.isTooShort(gap: gap) {
            add(.gapTooShort, "gap to the next cue is \(gap) ms (\(frames) frames); at least \(timing.minGapFrames.formatted()) frames needed")
        } else if timing.isUnchained(gap: gap) {
            add(.unchainedGap, "gap to the next cue is \(gap) ms (\(frames) frames); gaps up to \(timing.chainGapFrames.formatted()) frames should close to \(timing.minGapFrames.formatted())")
        }
    }
}

extension Double {
    /// Whole numbers without a decimal point, others as given.
    func formatted() -> String { String(format: "%g", self) }
}
