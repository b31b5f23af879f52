import CapforgeCore

/// Where the builder had to depart from the preferred shape, so it is reported, not hidden.
public struct CueSplit: Codable, Sendable, Equatable {
    public enum Reason: String, Codable, Sendable {
        /// A run of speech without punctuation or pause was too long for one cue.
        case noNaturalBreak = "no-natural-break"
        /// A single word was wider than a line and was cut into pieces.
        case wordTooWide = "word-too-wide"
        /// A single word lasted longer than a cue may; its time was shortened.
        case wordTooLong = "word-too-long"
        /// Earlier cues needed the time, so this one appears after its speech starts.
        case delayed = "delayed"
        /// The media ended before the cue's minimum duration or reading time: it ends with the
        /// media, and the rule it breaks is counted.
        case mediaEnd = "media-end"
        /// A shot change was near the cue's in- or out-time, but timing to it would break a
        /// harder rule: the cue kept its time.
        case shotChange = "shot-change"
    }

    public var reason: Reason
    /// 1-based number of the cue concerned.
    public var cue: Int
    /// Where on the timeline, in milliseconds.
    public var time: Int
    public var message: String
}

public struct CueBuildResult: Sendable, Equatable {
    public var cues: [Cue]
    public var splits: [CueSplit]
    /// Rules the cues still break; empty whenever the profile validates.
    public var violations: [LintViolation]
}
