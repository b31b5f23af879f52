import CapforgeCore
import Foundation
import Media
import Speech

/// Before a machine has any history, the dry run times the engine itself: 30 s of the first
/// file heard twice (the first time loads the model), and the extraction of those 30 s; for a
/// file whose language is left to detection, the detecting model's vote on them too.
struct SpeedProbe {
    /// Seconds to load the models, once a run.
    let load: Double
    /// Seconds for one 30 s window.
    let window: Double
    /// Seconds of extraction (and the speech detector) per second of media.
    let extraction: Double
    /// Seconds for one window of language detection; nil when no detection was timed.
    var detection: Double? = nil

    static let clipSeconds = 30.0

    /// Encoder windows per 30 s of a long recording, as it is cut. Chunked: chunks end at pauses,
    /// overlap, and a sentence at a window's edge gets a window of its own unless the next chunk
    /// hears it. `--one-pass`: one window per chunk. Whole file: Whisper's own 30 s steps, each
    /// from the last sentence it finished. Measured with tiny.en (a temporary trace of the
    /// encoder callback) on 5.6, 15.0 and 15.8 min: 21, 49 and 56 windows chunked; 14, 36 and
    /// 40 with `--one-pass`; 14, 34 and 36 whole.
    static func windowsPerThirtySeconds(_ options: TranscriptionOptions) -> Double {
        !options.chunking ? 1.2 : options.onePass ? 1.25 : 1.8
    }

    private struct Enough: Error {}

    static func measure(engine: any SpeechEngine, language: Language, file: URL, selection: AudioStreamSelection,
                        detector: (any SpeechEngine)? = nil) throws -> SpeedProbe {
        var samples: [Float] = []
        let wanted = Int(Self.clipSeconds) * MonoAudio.sampleRate
        let clock = ContinuousClock()
        let began = clock.now
        do {
            _ = try AudioExtractor(path: file.path, selection: selection).extract { block in
                samples += block.prefix(wanted - samples.count)
                if samples.count >= wanted { throw Enough() }
            }
        } catch is Enough {}
        let extracted = (clock.now - began) / .seconds(1)
        let audio = MonoAudio(samples: samples)
        let first = clock.now
        _ = try engine.transcribe(audio, language: language, cancellation: Cancellation())
        let second = clock.now
        _ = try engine.transcribe(audio, language: language, cancellation: Cancellation())
        let window = (clock.now - second) / .seconds(1)
        var load = max(0, (second - first) / .seconds(1) - window)
        var detection: Double?
        if let detector {
            // Twice as well: the detector may be another model, loaded by its first vote.
            let first = clock.now
            _ = try detector.detectLanguage(audio)
            let second = clock.now
            _ = try detector.detectLanguage(audio)
            let vote = (clock.now - second) / .seconds(1)
            load += max(0, (second - first) / .seconds(1) - vote)
            detection = vote
        }
        return SpeedProbe(load: load, window: window, extraction: extracted / max(audio.duration, 1), detection: detection)
    }

    /// Seconds of work for a file of `duration` seconds (the model's load not included), heard
    /// as `options` cut it.
    func estimate(duration: Double, basic: Bool, options: TranscriptionOptions) -> Double {
        // The basic tier hears the audio straight through; Whisper pays a window at a time.
        let windows = basic ? duration / Self.clipSeconds
            : duration <= Self.clipSeconds ? 1 : duration / Self.clipSeconds * Self.windowsPerThirtySeconds(options)
        return windows * window + duration * extraction + detectionEstimate(duration: duration)
    }

    /// The language vote's windows for a file of `duration` seconds, priced as if it all were
    /// speech (the dry run has not listened to it).
    private func detectionEstimate(duration: Double) -> Double {
        guard let detection else { return 0 }
        return Double(LanguageVote.centres(of: [SpeechRegion(start: 0, end: duration)]).count) * detection
    }
}
