import CapforgeCore

/// A span of audio recognised in one engine call.
public struct PlannedChunk: Sendable, Equatable, Codable {
    public var index: Int
    /// The audio handed to the engine, in seconds on the file's timeline.
    public var start: Double
    public var end: Double
    /// Where this chunk's share of an overlap with its neighbours begins and ends (nil: no
    /// neighbour there): the overlap's middle, where the two meet when no word both heard joins them.
    public var keepFrom: Double?
    public var keepUntil: Double?
    /// The separate stretches of speech the chunk groups (empty when it is one stretch); a
    /// stretch that comes back without words is recognised again on its own.
    public var speech: [SpeechRegion] = []

    public var duration: Double { end - start }
}

/// Plans chunks at pauses found by the speech detector. Non-speech is skipped entirely (it is
/// also the main defence against Whisper inventing text on silence and music); a chunk that
/// must cut inside speech overlaps its neighbour.
public struct ChunkPlanner: Sendable {
    public var targetLength: Double
    public var overlap: Double
    public var detector: any SpeechDetector

    public init(targetLength: Double = 30, overlap: Double = 3, detector: any SpeechDetector = ChunkPlanner.defaultVAD) {
        precondition(targetLength > overlap * 2, "chunks must be longer than twice their overlap")
        self.targetLength = targetLength
        self.overlap = overlap
        self.detector = detector
    }

    /// The fallback detector when no Silero model is installed. The planner cuts long speech
    /// itself (with overlap), so the VAD must not.
    public static let defaultVAD: EnergyVAD = {
        var configuration = EnergyVAD.Configuration()
        configuration.maximumRegion = 24 * 3600
        configuration.padding = 0.2
        return EnergyVAD(configuration: configuration)
    }()

    public func plan(_ audio: MonoAudio) throws -> [PlannedChunk] {
        plan(regions: try detector.speechRegions(in: audio))
    }

    public func plan(regions: [SpeechRegion]) -> [PlannedChunk] {
        // A region longer than a window is cut at its pauses first: windows that meet in a pause
        // cut no word and open where a sentence does, where Whisper hears best (evenly spaced
        // windows open mid-sentence, and Whisper mishears there and falls back to sampling).
        var groups: [[SpeechRegion]] = []
        for region in regions {
            for piece in region.duration > targetLength ? region.pieces : [region] {
                if let first = groups.last?.first, piece.end - first.start <= targetLength {
                    groups[groups.count - 1].append(piece)
                } else {
                    groups.append([piece])
                }
            }
        }
        var chunks: [PlannedChunk] = []
        for group in groups {
            // Every stretch between pauses, so the check for speech without words (a decoder that
            // skipped to its segment's end) looks at each.
            let speech = group.flatMap(\.pieces)
            let windows = split((group.first!.start, group.last!.end))
            for (i, window) in windows.enumerated() {
                let keepFrom = i == 0 ? nil : (window.start + windows[i - 1].end) / 2
                let keepUntil = i == windows.count - 1 ? nil : (windows[i + 1].start + window.end) / 2
                chunks.append(PlannedChunk(index: chunks.count, start: window.start, end: window.end, keepFrom: keepFrom, keepUntil: keepUntil,
                                           speech: speech.count > 1 ? speech : []))
            }
        }
        return chunks
    }

    /// How far inward a window edge that cuts through speech may move to reach a pause.
    static let edgeSearch = 0.75

    /// `chunks` with every window edge that falls inside speech (where a neighbour overlaps)
    /// moved inward, by at most `edgeSearch`, to the quietest moment there: a window that
    /// opens in the middle of a word makes Whisper invent its first words and time those after
    /// them seconds early, which no seam can repair. The overlaps' middles follow the edges.
    public func placedAtPauses(_ chunks: [PlannedChunk], in audio: any AudioSource) throws -> [PlannedChunk] {
        var placed = chunks
        for i in placed.indices {
            (placed[i].start, placed[i].end) = try Self.edgesAtPauses(
                placed[i].start, placed[i].end, moving: (start: placed[i].keepFrom != nil, end: placed[i].keepUntil != nil), in: audio)
        }
        for i in placed.indices.dropFirst() where placed[i].keepFrom != nil {
            let middle = (placed[i].start + placed[i - 1].end) / 2
            placed[i].keepFrom = middle
            placed[i - 1].keepUntil = middle
        }
        // Windows that meet in a pause the detector found meet at its quietest moment: the
        // detector's pause is only as precise as its 32 ms frames and its padding.
        for i in placed.indices.dropFirst() where placed[i].start == placed[i - 1].end && placed[i].keepFrom == nil {
            let pause = placed[i].start
            let from = max(placed[i - 1].start, pause - Self.pauseSearch)
            let to = min(placed[i].end, pause + Self.pauseSearch, placed[i - 1].start + targetLength)
            let quiet = to - from < 0.1 ? pause : try Self.quietest(in: audio, from: from, to: to, nearest: .start)
            (placed[i - 1].end, placed[i].start) = (quiet, quiet)
        }
        return placed
    }

    /// How far either side of a pause the detector found two windows may meet.
    static let pauseSearch = 0.4

    /// A window's `start` and `end`, those `moving` (edges that cut through speech) moved inward, by
    /// at most `edgeSearch`, to the quietest moment there.
    static func edgesAtPauses(
        _ start: Double, _ end: Double, moving: (start: Bool, end: Bool), in audio: any AudioSource
    ) throws -> (start: Double, end: Double) {
        let placedStart = moving.start ? try quietest(in: audio, from: start, to: min(end, start + edgeSearch), nearest: .start) : start
        let placedEnd = moving.end ? try quietest(in: audio, from: max(placedStart, end - edgeSearch), to: end, nearest: .end) : end
        return (placedStart, placedEnd)
    }

    /// The middle of the quietest 60 ms between `from` and `to`; of equally quiet ones, the one
    /// nearest the `nearest` end (the planned edge, which steady sound leaves where it was).
    static func quietest(in audio: any AudioSource, from: Double, to: Double, nearest: Side) throws -> Double {
        let clip = try audio.slice(from: from, to: to)
        let levels = LoudnessEnvelope(clip.samples[...]).levels
        let span = 3  // 20 ms frames
        guard levels.count > span else { return nearest == .start ? from : to }
        let starts = Array(0...(levels.count - span))
        let quietest = (nearest == .start ? starts : starts.reversed()).min { a, b in
            levels[a..<(a + span)].reduce(0, +) < levels[b..<(b + span)].reduce(0, +)
        }!
        let frame = Double(LoudnessEnvelope.frameLength) / Double(MonoAudio.sampleRate)
        return min(to, max(from, clip.startTime + (Double(quietest) + Double(span) / 2) * frame))
    }

    enum Side { case start, end }

    /// Windows of at most `targetLength` covering unbroken speech, overlapping by `overlap`.
    private func split(_ span: (start: Double, end: Double)) -> [(start: Double, end: Double)] {
        let length = span.end - span.start
        guard length > targetLength else { return [span] }
        let step = targetLength - overlap
        let count = Int(((length - overlap) / step).rounded(.up))
        // Even windows rather than a stub at the end: every window gets a useful amount of context.
        let evenStep = (length - targetLength) / Double(max(1, count - 1))
        return (0..<count).map { i in
            let start = span.start + Double(i) * evenStep
            return (start, min(span.end, start + targetLength))
        }
    }
}
