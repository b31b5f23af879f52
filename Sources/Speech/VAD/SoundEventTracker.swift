import CapforgeCore

/// How frame probabilities become events, the same for every kind.
public struct SoundEventRules: Sendable, Equatable {
    /// A frame at or above this starts an event (the model's own decision point)...
    public var enter: Float = 0.5
    /// ...which lasts until a frame below this: a hysteresis band, so a probability that
    /// wavers around one threshold does not cut a stretch into slivers.
    public var exit: Float = 0.3
    /// Dips shorter than this (seconds) are bridged: a breath between sentences, a quiet bar.
    public var minimumGap: Double = 0.3
    /// Events shorter than this after bridging are dropped: a click, a cough.
    public var minimumDuration: Double = 0.3

    public init() {}

    /// Rules that find any hint of a voice (speech or singing): music is taken to play alone
    /// only away from these. A voice under a music bed scores low (whispered or falsetto speech
    /// under music at −12 dB fell below 0.15 in a quarter of its frames, held-out MFA recordings),
    /// and a voice taken for music alone is silenced: losing words is worse than hearing music.
    public static let voice: SoundEventRules = {
        var rules = SoundEventRules()
        rules.enter = 0.1
        rules.exit = 0.05
        rules.minimumDuration = 0.05
        return rules
    }()
}

/// Turns frames, fed in order a block at a time, into events, holding only what is still open.
/// Kinds are tracked apart and may overlap. A jump in time between blocks (skipped silence)
/// ends what was open where the frames stopped.
public struct SoundEventTracker: Sendable {
    public let rules: SoundEventRules
    private var kinds: [Track]
    private var events: [SoundEvent] = []
    /// Where the last frame fed ends.
    private var end: Double?

    private struct Track {
        let kind: SoundEvent.Kind
        /// Where the run above the thresholds began, while it lasts.
        var open: Double?
        /// The last run, kept until the next one shows whether the gap is bridged.
        var pending: SoundEvent?
    }

    public init(rules: SoundEventRules = SoundEventRules()) {
        self.rules = rules
        kinds = SoundEvent.Kind.allCases.map { Track(kind: $0) }
    }

    public mutating func add(_ frames: SoundFrames) {
        if let end, frames.startTime > end + SoundFrames.step / 2 {
            for i in kinds.indices { close(i, at: end) }
        }
        for frame in 0 ..< frames.count {
            let time = SoundEventDetector.centiseconds(frames.time(ofFrame: frame))
            for i in kinds.indices {
                let p = frames[frame, kinds[i].kind]
                if kinds[i].open == nil, p >= rules.enter {
                    kinds[i].open = time
                } else if kinds[i].open != nil, p < rules.exit {
                    close(i, at: time)
                }
            }
        }
        if frames.count > 0 { end = SoundEventDetector.centiseconds(frames.endTime) }
    }

    /// Every event, by start (speech before singing before music at the same start); the tracker is spent.
    public mutating func finish() -> [SoundEvent] {
        for i in kinds.indices {
            if let end { close(i, at: end) }
            if let last = kinds[i].pending, last.duration >= rules.minimumDuration { events.append(last) }
            kinds[i].pending = nil
        }
        let order = SoundEvent.Kind.allCases
        return events.sorted { ($0.start, order.firstIndex(of: $0.kind)!) < ($1.start, order.firstIndex(of: $1.kind)!) }
    }

    /// Ends track `i`'s open run at `time`, bridging it to the pending one across a short gap.
    private mutating func close(_ i: Int, at time: Double) {
        guard let start = kinds[i].open else { return }
        kinds[i].open = nil
        if let pending = kinds[i].pending, start - pending.end < rules.minimumGap {
            kinds[i].pending?.end = time
            return
        }
        if let last = kinds[i].pending, last.duration >= rules.minimumDuration { events.append(last) }
        kinds[i].pending = SoundEvent(kind: kinds[i].kind, start: start, end: time)
    }
}
