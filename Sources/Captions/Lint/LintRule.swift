/// The rules a cue list is checked against; raw values appear in reports and JSON.
public enum LintRule: String, Codable, Sendable, CaseIterable, Comparable {
    case emptyCue = "empty-cue"
    case tooManyLines = "too-many-lines"
    case lineTooLong = "line-too-long"
    case durationTooShort = "duration-too-short"
    case durationTooLong = "duration-too-long"
    case readingSpeed = "reading-speed"
    case wordsPerMinute = "words-per-minute"
    case overlap = "overlap"
    case gapTooShort = "gap-too-short"
    case unchainedGap = "unchained-gap"
    /// Only with the video known: a cue that ends after the video does.
    case beyondVideo = "beyond-video"
    /// A cue that starts before the one before it in the file (read in file order, not sorted).
    case outOfOrder = "out-of-order"
    /// Only with the video's shot changes known: a cue starting or ending 1–11 frames from one.
    case shotChange = "shot-change"

    public static func < (lhs: LintRule, rhs: LintRule) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One broken rule at one cue.
public struct LintViolation: Codable, Sendable, Equatable {
    public var rule: LintRule
    /// 1-based position of the cue in time order.
    public var cue: Int
    public var start: Int
    public var end: Int
    public var message: String

    public init(rule: LintRule, cue: Int, start: Int, end: Int, message: String) {
        self.rule = rule
        self.cue = cue
        self.start = start
        self.end = end
        self.message = message
    }
}
