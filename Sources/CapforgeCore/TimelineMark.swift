/// A moment a warning is about, pinned to the review page's timeline.
public struct TimelineMark: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        case fallback, failedChunk = "failed-chunk", dropped, truncated
        /// A transcript's passage the audio did not support, and speech the transcript lacks.
        case notHeard = "not-heard", notInTranscript = "not-in-transcript"
        /// Where re-timed subtitles' map starts, and where its offset changes (a stretch cut or added).
        case syncMap = "sync-map"
        /// Music in which the music check found no voice: not transcribed.
        case music
    }

    public var start: Double
    public var end: Double
    public var kind: Kind
    public var text: String

    public init(start: Double, end: Double, kind: Kind, text: String) {
        self.start = start
        self.end = end
        self.kind = kind
        self.text = text
    }
}
