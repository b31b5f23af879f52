import CapforgeCore
import Foundation
import Speech

/// Audio with tone bursts ("speech") at the given spans and silence elsewhere.
func burstAudio(seconds: Double, bursts: [(Double, Double)], startTime: Double = 0) -> MonoAudio {
    var samples = [Float](repeating: 0, count: Int(seconds * 16_000))
    for (from, to) in bursts {
        for i in Int(from * 16_000)..<min(samples.count, Int(to * 16_000)) {
            samples[i] = 0.3 * Float(sin(2 * Double.pi * 220 * Double(i) / 16_000))
        }
    }
    return MonoAudio(samples: samples, startTime: startTime)
}

/// A real, deterministic recogniser of tone bursts: one word per 0.5 s of sound it hears, timed
/// where the sound is. Lets orchestration be tested without a model.
final class ToneEngine: SpeechEngine, @unchecked Sendable {
    let identity: EngineIdentity
    let supportedLanguages: Set<Language>
    /// The confidence of a word starting at a time (file timeline).
    var confidence: (Double) -> Double
    /// Calls to this engine, in order: the start time of each clip it was given.
    private(set) var calls: [Double] = []
    private let lock = NSLock()
    /// Decides, per call number (0-based), whether this call should fail or hang.
    var behaviour: (Int) -> Behaviour = { _ in .recognise }
    /// Like Whisper's encoder, a window of this many seconds: a longer clip is heard only up
    /// to the end of the last stretch of sound that ends inside it (nil: any length at once).
    var window: Double?
    /// What the engine says it cut of its own loops in a window (like Whisper's repetition guard).
    var loopCuts: (MonoAudio) -> [LoopCut] = { _ in [] }
    /// What the engine says it left out as heard over no speech (like Whisper's no-speech filter).
    var droppedWords: (MonoAudio) -> [Word] = { _ in [] }
    /// Windows it says it hears best at once (like Whisper on Capforge's runtime).
    var windowsAtOnce = 1
    /// Calls being heard now, and the most there were at one time.
    private(set) var hearing = 0
    /// `hearing`, read under the lock from another thread.
    var hearingNow: Int { lock.withLock { hearing } }
    private(set) var mostAtOnce = 0
    /// The `shareCores(among:)` calls, each from a thread about to hear windows.
    private(set) var sharedCores: [Int] = []

    func shareCores(among windows: Int) {
        lock.withLock { sharedCores.append(windows) }
    }

    /// `stopsAtFirstPause`: like Whisper on a window with a long pause, nothing after the first sound.
    /// `slow`: recognises after working this long (giving up if cancelled meanwhile).
    enum Behaviour { case recognise, fail, hangUntilCancelled, empty, stopsAtFirstPause, slow(seconds: Double) }

    init(engine: String, tier: Tier, languages: Set<Language>, confidence: Double = 0.9) {
        identity = EngineIdentity(engine: engine, tier: tier, model: "\(engine)-model")
        supportedLanguages = languages
        self.confidence = { _ in confidence }
    }

    func transcribe(_ audio: MonoAudio, language: Language, cancellation: Cancellation) throws -> [Word] {
        let call = lock.withLock {
            hearing += 1
            mostAtOnce = max(mostAtOnce, hearing)
            calls.append(audio.startTime)
            return calls.count - 1
        }
        defer { lock.withLock { hearing -= 1 } }
        switch behaviour(call) {
        case .fail:
            throw SpeechError.engineFailed(engine: identity.engine, reason: "injected failure")
        case .hangUntilCancelled:
            while true {
                if let reason = cancellation.reason {
                    throw reason == .deadline ? SpeechError.timedOut(seconds: 0) : Cancelled()
                }
                usleep(2_000)
            }
        case .empty:
            return []
        case .slow(let seconds):
            let done = Date().addingTimeInterval(seconds)
            while Date() < done {
                if let reason = cancellation.reason {
                    throw reason == .deadline ? SpeechError.timedOut(seconds: 0) : Cancelled()
                }
                usleep(2_000)
            }
            return recognised(audio, firstRegionOnly: false)
        case .recognise, .stopsAtFirstPause:
            if case .stopsAtFirstPause = behaviour(call) { return recognised(audio, firstRegionOnly: true) }
            return recognised(audio, firstRegionOnly: false)
        }
    }

    func transcribeWindow(_ audio: MonoAudio, language: Language, nextWindowFrom: Double?, cancellation: Cancellation) throws -> HeardWindow {
        let words = try transcribe(audio, language: language, cancellation: cancellation)
        guard let window, audio.duration > window else {
            return HeardWindow(words: words, heardUntil: audio.endTime, loopCuts: loopCuts(audio), droppedWords: droppedWords(audio).dropped(.steadySound))
        }
        let limit = audio.startTime + window
        let heardUntil = regions(of: audio).map(\.end).filter { $0 <= limit }.max() ?? limit
        // A second pass would be paid only for a rest the next window does not hear.
        guard let nextWindowFrom, heardUntil >= nextWindowFrom else { return HeardWindow(words: words, heardUntil: audio.endTime) }
        return HeardWindow(words: words.filter { $0.end <= heardUntil }, heardUntil: heardUntil)
    }

    private func regions(of audio: MonoAudio) -> [SpeechRegion] {
        var vad = EnergyVAD.Configuration()
        vad.padding = 0
        return EnergyVAD(configuration: vad).speechRegions(in: audio)
    }

    private func recognised(_ audio: MonoAudio, firstRegionOnly: Bool) -> [Word] {
        let regions = regions(of: audio)
        return regions.prefix(firstRegionOnly ? 1 : regions.count).flatMap { region in
            stride(from: region.start, to: region.end - 0.25, by: 0.5).map { t in
                Word(text: "tone", start: t, end: min(region.end, t + 0.5), confidence: confidence(t), tier: identity.tier, engine: identity.engine)
            }
        }
    }
}

/// Returns fixed words per call (on the file's timeline), whatever the audio: for what a real
/// engine does at window edges that tones cannot provoke.
final class ScriptedEngine: SpeechEngine, @unchecked Sendable {
    let identity: EngineIdentity
    let supportedLanguages: Set<Language> = [.english]
    private let calls: [[Word]]
    /// The call (0-based) that fails instead, if any.
    private let failing: Int?
    private var next = 0
    private let lock = NSLock()
    /// The span of audio each call was given, in call order.
    private(set) var windows: [ClosedRange<Double>] = []
    /// Loops the engine says it cut, by call.
    private let loopCuts: [Int: [LoopCut]]

    init(model: String = "scripted", calls: [[Word]], failing: Int? = nil, loopCuts: [Int: [LoopCut]] = [:]) {
        identity = EngineIdentity(engine: "whisper", tier: .modern, model: model)
        self.calls = calls
        self.failing = failing
        self.loopCuts = loopCuts
    }

    func transcribeWindow(_ audio: MonoAudio, language: Language, nextWindowFrom: Double?, cancellation: Cancellation) throws -> HeardWindow {
        let call = lock.withLock { next }
        return HeardWindow(words: try transcribe(audio, language: language, cancellation: cancellation), heardUntil: audio.endTime,
                           loopCuts: loopCuts[call] ?? [])
    }

    func transcribe(_ audio: MonoAudio, language: Language, cancellation: Cancellation) throws -> [Word] {
        let call = lock.withLock {
            defer { next += 1 }
            windows.append(audio.startTime...audio.endTime)
            return next
        }
        if call == failing { throw SpeechError.engineFailed(engine: "whisper", reason: "scripted failure") }
        return call < calls.count ? calls[call] : []
    }
}
