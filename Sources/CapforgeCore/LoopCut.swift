/// Copies of a phrase a recogniser repeated and the audio did not back (a decoder loop), cut from
/// its words: where, what it wrote, and what was kept of it.
public struct LoopCut: Codable, Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var heard: String
    public var kept: String

    public init(start: Double, end: Double, heard: String, kept: String) {
        self.start = start
        self.end = end
        self.heard = heard
        self.kept = kept
    }

    /// How many words the cut removed.
    public var wordsCut: Int { heard.split(separator: " ").count - kept.split(separator: " ").count }
}
