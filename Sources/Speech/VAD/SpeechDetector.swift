import CapforgeCore

/// A stretch of audio judged to hold sound worth recognising, in seconds on the file's timeline.
public struct SpeechRegion: Sendable, Equatable, Hashable, Codable {
    public var start: Double
    public var end: Double

    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }

    public var duration: Double { end - start }
}

/// Finds where speech is, so only that audio reaches a recogniser.
public protocol SpeechDetector: Sendable {
    /// Which detector this is, for reports (e.g. "silero-v6.2.0", "energy").
    var name: String { get }
    /// Speech regions of `audio`, in order and not overlapping, on the file's timeline.
    func speechRegions(in audio: MonoAudio) throws -> [SpeechRegion]
}
