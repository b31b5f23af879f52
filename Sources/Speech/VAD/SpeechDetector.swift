import CapforgeCore

/// A stretch of audio judged to hold sound worth recognising, in seconds on the file's timeline.
public struct SpeechRegion: Sendable, Equatable, Hashable, Codable {
    public var start: Double
    public var end: Double
    /// Moments inside where the speech paused long enough to end a region, but the context kept
    /// on both sides of the pause met, so the detector joined the two: a window may open or close
    /// there without cutting a word.
    public var pauses: [Double]

    public init(start: Double, end: Double, pauses: [Double] = []) {
        self.start = start
        self.end = end
        self.pauses = pauses.filter { $0 > start && $0 < end }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(start: try container.decode(Double.self, forKey: .start), end: try container.decode(Double.self, forKey: .end),
                  pauses: try container.decodeIfPresent([Double].self, forKey: .pauses) ?? [])
    }

    public var duration: Double { end - start }

    /// The part of the region from `from` to `to`, with the pauses inside it.
    public func clipped(from: Double, to: Double) -> SpeechRegion {
        SpeechRegion(start: max(start, from), end: min(end, to), pauses: pauses)
    }

    /// The region and `next` (which starts where this one ends, or inside it) as one; `pausedAt`:
    /// where they met is a pause rather than a cut.
    fileprivate func joined(with next: SpeechRegion, pausedAt: Bool) -> SpeechRegion {
        SpeechRegion(start: start, end: max(end, next.end), pauses: pauses + (pausedAt ? [next.start] : []) + next.pauses)
    }

    /// The region cut at its pauses, in order (itself when it has none).
    public var pieces: [SpeechRegion] {
        let edges = [start] + pauses + [end]
        return zip(edges, edges.dropFirst()).map { SpeechRegion(start: $0, end: $1) }
    }
}

extension [SpeechRegion] {
    /// These regions (in order, apart) that overlap one of `others` (in order, apart).
    func overlapping(_ others: [SpeechRegion]) -> [SpeechRegion] {
        var j = 0
        return filter { region in
            while j < others.count, others[j].end <= region.start { j += 1 }
            return j < others.count && others[j].start < region.end
        }
    }

    /// Appends `region`, joined to the last region when the two meet (to the centisecond, the
    /// library's resolution); `meetingIsPause`: where they met is a pause rather than a cut.
    mutating func append(_ region: SpeechRegion, meetingIsPause: Bool) {
        if let last, region.start <= last.end + 0.011 {
            self[count - 1] = last.joined(with: region, pausedAt: meetingIsPause)
        } else {
            append(region)
        }
    }
}

/// Finds where speech is, so only that audio reaches a recogniser.
public protocol SpeechDetector: Sendable {
    /// Which detector this is, for reports (e.g. "silero-v6.2.0", "energy").
    var name: String { get }
    /// Speech regions of `audio`, in order and not overlapping, on the file's timeline.
    func speechRegions(in audio: MonoAudio) throws -> [SpeechRegion]
    /// The same detector set to time speech rather than to feed a recogniser: no context kept
    /// about a region, and a pause as short as a breath ends one, so regions start and end
    /// where speech does (re-timing subtitles lines cues up with them).
    func forTiming() throws -> any SpeechDetector
}

enum SpeechDetectorDefaults {
    /// Seconds of known silence kept beside sound for detection: more than any detector's padding.
    static let silenceKept = 0.5
}

extension SpeechDetector {
    /// Regions of audio of any length, detected a block at a time so memory stays flat: each
    /// block is read with `context` seconds of audio on both sides (enough for the detector's
    /// state and padding to settle), keeps the regions inside its own span, and regions that
    /// meet at a block edge are joined. Audio of up to one block is detected in one piece.
    /// Known silence (`AudioSource.silentSpans`: no audio was there to decode) is skipped but for
    /// `silenceKept` on each side, so audio that starts hours in, or sparse packets with long
    /// gaps, costs only its sound: a detector starts from silence anyway, as at a file's start.
    public func speechRegions(across source: any AudioSource, block: Double = 300, context: Double = 30) throws -> [SpeechRegion] {
        var regions: [SpeechRegion] = []
        for span in source.detectedSpans(keeping: SpeechDetectorDefaults.silenceKept) {
            for region in try speechRegions(across: source, from: span.lowerBound, to: span.upperBound, block: block, context: context) {
                regions.append(region, meetingIsPause: false)
            }
        }
        return regions
    }

    /// `speechRegions(across:)` over `[from, to)` of `source`.
    private func speechRegions(across source: any AudioSource, from: Double, to: Double, block: Double, context: Double) throws -> [SpeechRegion] {
        if to - from <= block + 2 * context {
            return try speechRegions(in: source.slice(from: from, to: to))
        }
        var regions: [SpeechRegion] = []
        var blockStart = from
        while blockStart < to {
            let blockEnd = min(to, blockStart + block)
            let audio = try source.slice(from: blockStart - context, to: blockEnd + context)
            for found in try speechRegions(in: audio) {
                let region = found.clipped(from: blockStart, to: blockEnd)
                guard region.end > region.start else { continue }
                // A block edge is a cut, not a pause.
                regions.append(region, meetingIsPause: false)
            }
            blockStart = blockEnd
        }
        return regions
    }
}

extension AudioSource {
    /// What detection reads: all of the audio but known silence (`silentSpans`) longer than
    /// twice `kept`, which is skipped but for `kept` seconds on each side, in order.
    func detectedSpans(keeping kept: Double) -> [Range<Double>] {
        var spans: [Range<Double>] = []
        var from = startTime
        // The sound before each skipped span (and after the last), with some of its silence.
        for silent in silentSpans.filter({ $0.upperBound - $0.lowerBound > 2 * kept }) + [endTime..<endTime] {
            let to = min(endTime, silent.lowerBound + kept)
            if to > from { spans.append(from..<to) }
            from = max(from, silent.upperBound - kept)
        }
        return spans
    }
}
