import CapforgeCore
import Foundation
import Media
import Speech

/// Before a machine has any history, the dry run times the engine itself: 30 s of the first
/// file heard twice (the first time loads the model), and the extraction of those 30 s.
struct SpeedProbe {
    /// Seconds to load the model, once a run.
    let load: Double
    /// Seconds for one 30 s window.
    let window: Double
    /// Seconds of extraction (and the speech detector) per second of media.
    let extraction: Double

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

    static func measure(engine: any SpeechEngine, language: Language, file: URL, selection: AudioStreamSelection) throws -> SpeedProbe {
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
        return SpeedProbe(load: max(0, (second - first) / .seconds(1) - window), window: window, extraction: extracted / max(audio.duration, 1))
    }

    /// Seconds of work for a file of `duration` seconds (the model's load not included), heard
    /// as `options` cut it.
    func estimate(duration: Double, basic: Bool, options: TranscriptionOptions) -> Double {
        // The basic tier hears the audio straight through; Whisper pays a window at a time.
        let windows = basic ? duration / Self.clipSeconds
            : duration <= Self.clipSeconds ? 1 : duration / Self.clipSeconds * Self.windowsPerThirtySeconds(options)
        return windows * window + duration * extraction
    }
}
