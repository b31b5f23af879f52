/// One subtitle event: up to a few lines shown together.
///
/// Times are integer milliseconds on the file's timeline: subtitle formats are millisecond
/// based, and integers keep write → read round trips exact.
public struct Cue: Codable, Sendable, Equatable, Hashable {
    public var start: Int
    public var end: Int
    public var lines: [String]
    /// The words the cue was built from; empty for cues read from a subtitle file.
    public var words: [Word]

    public init(start: Int, end: Int, lines: [String], words: [Word] = []) {
        self.start = start
        self.end = end
        self.lines = lines
        self.words = words
    }

    public var duration: Int { end - start }
    public var text: String { lines.joined(separator: "\n") }

    /// The lowest tier among the cue's words: one basic word makes the cue basic.
    public var tier: Tier? {
        words.isEmpty ? nil : (words.contains { $0.tier == .basic } ? .basic : .modern)
    }
}
