import CWhisper
import CapforgeCore
import Foundation
import Synchronization

/// Silero VAD, a small neural network, run through libwhisper's own VAD API. Unlike frame
/// energy it tells speech from music and steady noise, so those spans never reach Whisper
/// (which invents text over them).
public final class SileroVAD: SpeechDetector, Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Speech probability from which a 32 ms window counts as speech. Below the model's 0.5:
        /// at 0.5 soft word onsets come late and clipped, while music over noise stays far
        /// below even 0.25 (measured on Fixtures/silence-music.mkv).
        public var threshold: Float = 0.35
        /// Shorter bursts are clicks and breaths, not words.
        public var minimumSpeech: Double = 0.25
        /// A pause must last this long to end a region...
        public var minimumSilence: Double = 0.3
        /// ...and every region keeps this much context on both sides, so word edges are not
        /// clipped; regions whose padding meets become one. Whisper needs the context: on
        /// Benchmarks/transcribe's 760 words, 0.2 s gave 16 errors, 0.4 s 10, 0.6 s 7, 0.8 s 8.
        public var padding: Double = 0.6
        /// The network is tiny: one thread runs it in well under a second per minute of audio
        /// and cannot spin against Whisper's OpenMP threads.
        public var threads = 1

        public init() {}
    }

    /// The model Scripts/setup installs into the models directory.
    public static let modelFileName = "ggml-silero-v6.2.0.bin"

    public let name: String
    public let configuration: Configuration
    private let modelPath: String

    /// A whisper_vad_context keeps per-run state: every use holds the lock.
    private let context: Mutex<OpaquePointer>
    private let whisper: cwhisper_functions

    public init(modelPath: String, configuration: Configuration = Configuration()) throws {
        try WhisperLibrary.verifyABI()
        whisper = try WhisperLibrary.functions()
        try Self.verifyDefaults(whisper)
        guard FileManager.default.fileExists(atPath: modelPath) else {
            throw SpeechError.modelMissing(path: modelPath, hint: "run Scripts/setup, which installs the Silero VAD model")
        }
        WhisperLibrary.routeLogOnce
        var params = whisper.whisper_vad_default_context_params()
        params.n_threads = Int32(max(1, configuration.threads))
        params.use_gpu = false
        guard let context = whisper.whisper_vad_init_from_file_with_params(modelPath, params) else {
            throw SpeechError.modelInvalid(
                path: modelPath, reason: "libwhisper could not load it as a Silero VAD model; delete it and rerun Scripts/setup")
        }
        self.context = Mutex(context)
        self.configuration = configuration
        self.modelPath = modelPath
        name = ModelStore.modelName(ofFile: URL(fileURLWithPath: modelPath).lastPathComponent)
    }

    deinit { context.withLock { whisper.whisper_vad_free($0) } }

    public func speechRegions(in audio: MonoAudio) throws -> [SpeechRegion] {
        guard !audio.samples.isEmpty else { return [] }
        guard audio.samples.count <= Int(Int32.max) else {
            throw SpeechError.engineFailed(engine: name, reason: "the audio is longer than libwhisper's VAD accepts (37 hours); split the input")
        }
        var params = whisper.whisper_vad_default_params()
        params.threshold = configuration.threshold
        params.min_speech_duration_ms = Self.milliseconds(configuration.minimumSpeech)
        params.min_silence_duration_ms = Self.milliseconds(configuration.minimumSilence)
        params.speech_pad_ms = Self.milliseconds(configuration.padding)
        // The chunk planner cuts long speech itself, with overlap.
        params.max_speech_duration_s = .greatestFiniteMagnitude

        let spans = try context.withLock { context in
            let found = audio.samples.withUnsafeBufferPointer {
                whisper.whisper_vad_segments_from_samples(context, params, $0.baseAddress, Int32($0.count))
            }
            guard let segments = found else {
                throw SpeechError.engineFailed(engine: name, reason: "libwhisper's speech detection failed; rerun with the energy VAD by removing \(Self.modelFileName) from the models directory")
            }
            defer { whisper.whisper_vad_free_segments(segments) }
            return (0..<whisper.whisper_vad_segments_n_segments(segments)).map { i in
                (start: Double(whisper.whisper_vad_segments_get_segment_t0(segments, i)) / 100,
                 end: Double(whisper.whisper_vad_segments_get_segment_t1(segments, i)) / 100)
            }
        }
        return SoundOnset.extended(Self.regions(spans, in: audio), in: audio, context: min(SoundOnset.context, configuration.padding))
    }

    /// Spans in seconds from the first sample, placed on the file's timeline and kept inside the
    /// audio (the model pads the last window past the end); spans that meet are joined, and where
    /// they met is a pause of the region.
    static func regions(_ spans: [(start: Double, end: Double)], in audio: MonoAudio) -> [SpeechRegion] {
        var regions: [SpeechRegion] = []
        for span in spans {
            let start = max(audio.startTime, audio.startTime + span.start)
            let end = min(audio.endTime, audio.startTime + span.end)
            guard end > start else { continue }
            // Padding that meets is split by the library, in the pause.
            regions.append(SpeechRegion(start: start, end: end), meetingIsPause: true)
        }
        return regions
    }

    public func forTiming() throws -> any SpeechDetector {
        var timing = configuration
        timing.padding = 0
        timing.minimumSilence = 0.1
        return try SileroVAD(modelPath: modelPath, configuration: timing)
    }

    private static func milliseconds(_ seconds: Double) -> Int32 { Int32((seconds * 1000).rounded()) }

    /// The library's VAD defaults, read through our header, must be v1.8.5's: otherwise the
    /// parameter structs would be passed with fields at the wrong offsets.
    private static func verifyDefaults(_ whisper: cwhisper_functions) throws {
        let params = whisper.whisper_vad_default_params()
        let context = whisper.whisper_vad_default_context_params()
        let checks: [(String, Bool)] = [
            ("whisper_vad_params.threshold", params.threshold == 0.5),
            ("whisper_vad_params.min_speech_duration_ms", params.min_speech_duration_ms == 250),
            ("whisper_vad_params.min_silence_duration_ms", params.min_silence_duration_ms == 100),
            ("whisper_vad_params.max_speech_duration_s", params.max_speech_duration_s == .greatestFiniteMagnitude),
            ("whisper_vad_params.speech_pad_ms", params.speech_pad_ms == 30),
            ("whisper_vad_params.samples_overlap", abs(params.samples_overlap - 0.1) < 1e-6),
            ("whisper_vad_context_params.n_threads", context.n_threads == 4),
            ("whisper_vad_context_params.use_gpu", !context.use_gpu),
            ("whisper_vad_context_params.gpu_device", context.gpu_device == 0),
        ]
        let mismatches = checks.filter { !$0.1 }.map { "\($0.0) has an unexpected default" }
        guard mismatches.isEmpty else {
            throw WhisperABIError(libraryVersion: try WhisperLibrary.version, headerVersion: WhisperABIExpectation.release1_8_5.release, mismatches: mismatches)
        }
    }
}
