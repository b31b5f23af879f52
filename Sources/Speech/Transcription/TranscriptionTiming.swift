import CapforgeCore
import Foundation

/// What transcribing costs on this machine, before it has any history: an engine timed on a
/// 30 s clip heard twice (the first time loads the model), and, for a file whose language is
/// left to detection, the detecting model's vote on it too.
public struct TranscriptionTiming: Sendable {
    /// Seconds to load the models, once a run.
    public let load: Double
    /// Seconds for one 30 s window (its share where windows are heard side by side).
    let window: Double
    /// Seconds for one window of language detection; nil when no detection was timed.
    var detection: Double? = nil
    /// Whisper on Capforge's runtime, which hears a chunk's leftover sentence from the window's own pass.
    var onRuntime = false
    /// Seconds for a 30 s window heard alone, as a file of one chunk is; nil: `window`.
    var loneWindow: Double? = nil

    public static let clipSeconds = 30.0

    /// Encoder windows per 30 s of a long recording, as it is cut. Chunked: chunks end at pauses,
    /// overlap, and a sentence at a window's edge gets a window of its own unless the next chunk
    /// hears it. `--one-pass`: one window per chunk. Whole file: Whisper's own 30 s steps, each
    /// from the last sentence it finished. Measured with tiny.en (a temporary trace of the
    /// encoder) on 5.6, 15.0 and 15.8 min: 21, 49 and 56 windows chunked; 14, 36 and 40 with
    /// `--one-pass`; 14, 34 and 36 whole. On Capforge's runtime the probe's 30 s clip, heard
    /// whole, already pays for a leftover sentence the way a chunk does (from the same pass where
    /// the chunk's audio ends inside the window), so a file costs its chunks: 12, 35 and 37 there
    /// (1.15 per 30 s). With 1.4, the encoder passes, the 5.6-minute file was estimated at 11.2 s
    /// for a run of 8.1 s.
    static func windowsPerThirtySeconds(_ options: TranscriptionOptions, onRuntime: Bool) -> Double {
        !options.chunking ? 1.2 : options.onePass ? 1.25 : onRuntime ? 1.15 : 1.8
    }

    static func measure(engine: any SpeechEngine, language: Language, clip: MonoAudio, detector: (any SpeechEngine)?) throws -> TranscriptionTiming {
        let clock = ContinuousClock()
        let first = clock.now
        _ = try engine.transcribe(clip, language: language, cancellation: Cancellation())
        let second = clock.now
        _ = try engine.transcribe(clip, language: language, cancellation: Cancellation())
        let alone = (clock.now - second) / .seconds(1)
        var load = max(0, (second - first) / .seconds(1) - alone)
        // Where the run hears two chunks side by side, a window of a longer file costs its share
        // of their time; a file of one chunk is heard alone.
        let window = engine.windowsAtOnce > 1 ? try engine.windowSecondsSideBySide(clip, language: language) : alone
        var detection: Double?
        if let detector {
            // Twice as well: the detector may be another model, loaded by its first vote.
            let first = clock.now
            _ = try detector.detectLanguage(clip)
            let second = clock.now
            _ = try detector.detectLanguage(clip)
            let vote = (clock.now - second) / .seconds(1)
            load += max(0, (second - first) / .seconds(1) - vote)
            detection = vote
        }
        return TranscriptionTiming(load: load, window: window, detection: detection,
                                   onRuntime: engine.identity.runtime == WhisperNetworkChoice.capforge.rawValue, loneWindow: alone)
    }

    /// Seconds of recognition for a file of `duration` seconds (the model's load not included),
    /// heard as `options` cut it.
    public func estimate(duration: Double, basic: Bool, options: TranscriptionOptions) -> Double {
        // The basic tier hears the audio straight through; Whisper pays a window at a time.
        let windows = basic ? duration / Self.clipSeconds
            : duration <= Self.clipSeconds ? 1 : duration / Self.clipSeconds * Self.windowsPerThirtySeconds(options, onRuntime: onRuntime)
        let price = !basic && duration <= Self.clipSeconds ? loneWindow ?? window : window
        return windows * price + detectionEstimate(duration: duration)
    }

    /// The language vote's windows for a file of `duration` seconds, priced as if it all were
    /// speech (the dry run has not listened to it).
    private func detectionEstimate(duration: Double) -> Double {
        guard let detection else { return 0 }
        return Double(LanguageVote.centres(of: [SpeechRegion(start: 0, end: duration)]).count) * detection
    }
}

/// How a file whose audio no tag names a language for is planned before it is heard: as
/// English (what the run falls back to), with the language vote when a model detects languages.
public struct UntaggedLanguagePlan: Sendable {
    /// English's plan; nil when no tier covers English.
    public let plan: TierPlan?
    /// The model that votes on the language; nil: English is assumed.
    public let voter: EngineIdentity?

    /// What the dry run says the language will be.
    public var description: String {
        voter == nil ? "English assumed: no multilingual model is installed to detect it" : "decided after detection, priced as English"
    }
}

extension FileTranscriber {
    public func untaggedLanguagePlan(preference: TierPreference) -> UntaggedLanguagePlan {
        UntaggedLanguagePlan(plan: try? resolver.resolve(.english, preference: preference), voter: engines.languageDetector?.identity)
    }

    /// Times the engine that hears files of `plan` on `clip`, with the language vote when
    /// `detecting`; nil when no engine covers the plan.
    public func timing(on clip: MonoAudio, plan: TierPlan, detecting: Bool) throws -> TranscriptionTiming? {
        guard let engine = engines.engine(plan.mode == .basic ? .basic : .modern, for: plan.language) else { return nil }
        return try TranscriptionTiming.measure(engine: engine, language: plan.language, clip: clip, detector: detecting ? engines.languageDetector : nil)
    }
}
