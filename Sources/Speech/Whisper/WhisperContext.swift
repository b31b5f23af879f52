import CWhisper
import CapforgeCore
import Foundation

/// Owns one `whisper_context` (model weights plus the default decoding state). Not
/// thread-safe: the engine serialises every call.
final class WhisperContext {
    /// How the model computes attention; DTW alignment needs flash attention off.
    enum Attention {
        case flash
        case dtwAlignment(whisper_alignment_heads_preset)
    }

    private let context: OpaquePointer
    private let whisper: cwhisper_functions
    let path: String

    init(modelPath: String, attention: Attention) throws {
        whisper = try WhisperLibrary.functions()
        WhisperLibrary.routeLogOnce
        var params = whisper.whisper_context_default_params()
        params.use_gpu = false
        switch attention {
        case .flash:
            params.flash_attn = true
        case .dtwAlignment(let preset):
            params.flash_attn = false
            params.dtw_token_timestamps = true
            params.dtw_aheads_preset = preset
        }
        guard let context = whisper.whisper_init_from_file_with_params(modelPath, params) else {
            throw SpeechError.modelInvalid(
                path: modelPath, reason: "libwhisper could not load it as a ggml Whisper model; re-import it with `capforge models import`")
        }
        self.context = context
        self.path = modelPath
    }

    deinit { whisper.whisper_free(context) }

    var isMultilingual: Bool { whisper.whisper_is_multilingual(context) != 0 }
    var endOfText: Int32 { whisper.whisper_token_eot(context) }

    /// Runs the model over `samples`; `shouldAbort` is polled by ggml between graph steps. With
    /// `passesBefore` (centiseconds into `samples`), a 30 s encoder pass after the first starts
    /// only while Whisper's last finished segment ends before it (what lies after is heard by
    /// the next window; 0: one pass), keeping what was decoded. Returns libwhisper's status code
    /// (0 = success) and whether a pass was refused.
    func run(_ params: whisper_full_params, samples: [Float], shouldAbort: Cancellation, passesBefore: Int64? = nil) -> (status: Int32, stoppedEarly: Bool) {
        var params = params
        params.abort_callback = { userData in
            guard let userData else { return false }
            return Unmanaged<Cancellation>.fromOpaque(userData).takeUnretainedValue().isCancelled
        }
        let budget = PassBudget(before: passesBefore, library: whisper)
        params.encoder_begin_callback = { context, _, userData in
            guard let userData, let context else { return true }
            return Unmanaged<PassBudget>.fromOpaque(userData).takeUnretainedValue().allows(context)
        }
        let status = withExtendedLifetime((shouldAbort, budget)) {
            params.abort_callback_user_data = Unmanaged.passUnretained(shouldAbort).toOpaque()
            params.encoder_begin_callback_user_data = Unmanaged.passUnretained(budget).toOpaque()
            return samples.withUnsafeBufferPointer { whisper.whisper_full(context, params, $0.baseAddress, Int32($0.count)) }
        }
        return (status, budget.refused)
    }

    /// Which encoder passes a run may start; used from the run's own thread only.
    private final class PassBudget {
        let before: Int64?
        let library: cwhisper_functions
        var started = 0
        var refused = false

        init(before: Int64?, library: cwhisper_functions) {
            self.before = before
            self.library = library
        }

        /// A pass starts where the last finished segment ends (Whisper's seek).
        func allows(_ context: OpaquePointer) -> Bool {
            defer { started += 1 }
            guard started > 0, let before else { return true }
            let segments = library.whisper_full_n_segments(context)
            guard segments > 0, library.whisper_full_get_segment_t1(context, segments - 1) >= before else { return true }
            refused = true
            return false
        }
    }

    func segments() -> [DecodedSegment] {
        (0..<whisper.whisper_full_n_segments(context)).map { s in
            DecodedSegment(
                start: whisper.whisper_full_get_segment_t0(context, s),
                end: whisper.whisper_full_get_segment_t1(context, s),
                noSpeechProbability: whisper.whisper_full_get_segment_no_speech_prob(context, s),
                tokens: (0..<whisper.whisper_full_n_tokens(context, s)).map { t in
                    let data = whisper.whisper_full_get_token_data(context, s, t)
                    return DecodedToken(
                        id: data.id, bytes: tokenBytes(data.id), probability: data.p,
                        start: data.t0, end: data.t1, dtwTime: data.t_dtw)
                })
        }
    }

    func tokenCount(_ text: String) -> Int {
        Int(abs(whisper.whisper_tokenize(context, text, nil, 0)))
    }

    /// The language id whisper decoded in, after a run with language "auto".
    /// The library's defaults for a decode with `strategy`.
    func defaultParams(_ strategy: whisper_sampling_strategy) -> whisper_full_params {
        whisper.whisper_full_default_params(strategy)
    }

    var decodedLanguageID: Int32 { whisper.whisper_full_lang_id(context) }

    /// Probabilities of every language id for the first 30 s of `samples`.
    func languageProbabilities(_ samples: [Float], threads: Int32) throws -> [Float] {
        let melStatus = samples.withUnsafeBufferPointer { whisper.whisper_pcm_to_mel(context, $0.baseAddress, Int32($0.count), threads) }
        guard melStatus == 0 else {
            throw SpeechError.engineFailed(engine: WhisperEngine.engineName, reason: "computing the spectrogram failed (code \(melStatus))")
        }
        var probabilities = [Float](repeating: 0, count: Int(whisper.whisper_lang_max_id()) + 1)
        let best = whisper.whisper_lang_auto_detect(context, 0, threads, &probabilities)
        guard best >= 0 else {
            throw SpeechError.engineFailed(engine: WhisperEngine.engineName, reason: "language detection failed (code \(best))")
        }
        return probabilities
    }

    /// Raw BPE bytes: a token may hold part of a UTF-8 sequence, so no String here.
    private func tokenBytes(_ id: Int32) -> [UInt8] {
        guard let text = whisper.whisper_token_to_str(context, id) else { return [] }
        return Array(UnsafeRawBufferPointer(start: text, count: strlen(text)))
    }
}
