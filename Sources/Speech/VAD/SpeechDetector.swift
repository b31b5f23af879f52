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

extension SpeechDetector {
    /// Regions of audio of any length, detected a block at a time so memory stays flat: each
    /// block is read with `context` seconds of audio on both sides (enough for the detector's
    /// state and padding to settle), keeps the regions inside its own span, and regions that
    /// meet at a block edge are joined. Audio of up to one block is detected in one piece.
    public func speechRegions(across source: any AudioSource, block: Double = 300, context: Double = 30) throws -> [SpeechRegion] {
        if source.duration <= block + 2 * context {
            return try speechRegions(in: source.slice(from: source.startTime, to: source.endTime))
        }
        var regions: [SpeechRegion] = []
        var blockStart = source.startTime
        while blockStart < source.endTime {
            let blockEnd = min(source.endTime, blockStart + block)
            let audio = try source.slice(from: blockStart - context, to: blockEnd + context)
            for region in try speechRegions(in: audio) {
                let start = max(region.start, blockStart), end = min(region.end, blockEnd)
                guard end > start else { continue }
                if let last = regions.last, start <= last.end + 0.011 {
                    regions[regions.count - 1].end = max(last.end, end)
                } else {
                    regions.append(SpeechRegion(start: start, end: end))
                }
            }
            blockStart = blockEnd
        }
        return regions
    }
}
