import CWhisper
import CapforgeCore
import Foundation
import Synchronization

/// Owns one `whisper_context` (model weights plus the default decoding state) and decodes with
/// it as `options` say: libwhisper behind `WhisperEngine`. The context is single-threaded:
/// every call that reaches it holds the lock, and a decode and the reading of what it decoded
/// are one call.
final class WhisperContext: WhisperBackend {
    /// How the model computes attention; DTW alignment needs flash attention off.
    enum Attention {
        case flash
        case dtwAlignment(whisper_alignment_heads_preset)
    }

    /// Unchecked: a C pointer, reached only under the lock that holds it.
    private struct State: @unchecked Sendable {
        let context: OpaquePointer
        /// Built when a beam first needs them.
        var tokenRules: WhisperTokenRules?
    }

    private let state: Mutex<State>
    private let whisper: cwhisper_functions
    let path: String
    let options: WhisperOptions
    let isMultilingual: Bool
    let endOfText: Int32

    init(modelPath: String, attention: Attention, options: WhisperOptions) throws {
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
        state = Mutex(State(context: context))
        path = modelPath
        self.options = options
        isMultilingual = whisper.whisper_is_multilingual(context) != 0
        endOfText = whisper.whisper_token_eot(context)
    }

    deinit { state.withLock { whisper.whisper_free($0.context) } }

    /// Runs the model over `samples`; `shouldAbort` is polled by ggml between graph steps. With
    /// `passesBefore` (centiseconds into `samples`), a 30 s encoder pass after the first starts
    /// only while Whisper's last finished segment ends before it (what lies after is heard by
    /// the next window; 0: one pass), keeping what was decoded. With `beam`, each window's tokens
    /// are the ones Capforge's beam search picks (a greedy `params` runs it). Returns libwhisper's
    /// status code (0 = success), whether a pass was refused, and on success the segments and
    /// the language (libwhisper's id) they were decoded in.
    private func decode(
        with params: whisper_full_params, samples: [Float], shouldAbort: Cancellation, passesBefore: Int64?, beam: BeamForcing?
    ) -> (status: Int32, stoppedEarly: Bool, segments: [DecodedSegment], languageID: Int32) {
        state.withLock { state in
            let status = run(state.context, params, samples: samples, shouldAbort: shouldAbort, passesBefore: passesBefore, beam: beam)
            guard status.status == 0 else { return (status.status, status.stoppedEarly, [], -1) }
            return (status.status, status.stoppedEarly, segments(of: state.context), whisper.whisper_full_lang_id(state.context))
        }
    }

    private func run(
        _ context: OpaquePointer, _ params: whisper_full_params, samples: [Float], shouldAbort: Cancellation, passesBefore: Int64?, beam: BeamForcing?
    ) -> (status: Int32, stoppedEarly: Bool) {
        var params = params
        params.abort_callback = { userData in
            guard let userData else { return false }
            return Unmanaged<Cancellation>.fromOpaque(userData).takeUnretainedValue().isCancelled
        }
        let hooks = RunHooks(budget: PassBudget(before: passesBefore, library: whisper), beam: beam, library: whisper,
                             threads: params.n_threads, vocabularySize: Int(whisper.whisper_n_vocab(context)))
        params.encoder_begin_callback = { context, state, userData in
            guard let userData, let context, let state else { return true }
            return Unmanaged<RunHooks>.fromOpaque(userData).takeUnretainedValue().windowBegins(context, state)
        }
        if beam != nil {
            params.logits_filter_callback = { context, state, tokens, count, logits, userData in
                guard let context, let state, let logits, let userData else { return }
                let prefix = tokens.map { tokens in (0..<Int(count)).map { tokens[$0].id } } ?? []
                Unmanaged<RunHooks>.fromOpaque(userData).takeUnretainedValue().beforeToken(context, state, prefix: prefix, logits: logits)
            }
        }
        let status = withExtendedLifetime((shouldAbort, hooks)) {
            params.abort_callback_user_data = Unmanaged.passUnretained(shouldAbort).toOpaque()
            params.encoder_begin_callback_user_data = Unmanaged.passUnretained(hooks).toOpaque()
            params.logits_filter_callback_user_data = Unmanaged.passUnretained(hooks).toOpaque()
            return samples.withUnsafeBufferPointer { whisper.whisper_full(context, params, $0.baseAddress, Int32($0.count)) }
        }
        return (status, hooks.budget.refused)
    }

    /// What the run's callbacks reach; used from the run's own thread only (a temperature
    /// fallback's parallel decoders call `beforeToken`, which then only reads).
    private final class RunHooks {
        let budget: PassBudget
        let beam: BeamForcing?
        let library: cwhisper_functions
        let threads: Int32
        let vocabularySize: Int

        init(budget: PassBudget, beam: BeamForcing?, library: cwhisper_functions, threads: Int32, vocabularySize: Int) {
            self.budget = budget
            self.beam = beam
            self.library = library
            self.threads = threads
            self.vocabularySize = vocabularySize
        }

        func windowBegins(_ context: OpaquePointer, _ state: OpaquePointer) -> Bool {
            guard budget.allows(context) else { return false }
            if let beam {
                let segments = library.whisper_full_n_segments_from_state(state)
                beam.windowBegins(
                    segmentsSoFar: Int(segments), lastSegmentEnd: segments > 0 ? library.whisper_full_get_segment_t1_from_state(state, segments - 1) : nil,
                    audioLength: Int64(library.whisper_n_len_from_state(state)))
            }
            return true
        }

        func beforeToken(_ context: OpaquePointer, _ state: OpaquePointer, prefix: [Int32], logits: UnsafeMutablePointer<Float>) {
            beam?.beforeToken(
                prefix: prefix, scores: ScoreRow(values: UnsafeMutableBufferPointer(start: logits, count: vocabularySize)),
                decoder: StateDecoder(context: context, state: state, library: library, threads: threads, vocabularySize: vocabularySize))
        }
    }

    /// The scores libwhisper is about to pick the next token from.
    private struct ScoreRow: NextTokenScores {
        let values: UnsafeMutableBufferPointer<Float>

        func copied() -> [Float] { Array(values) }

        func force(_ id: Int32) -> Bool {
            let index = Int(id)
            var rival = -Float.infinity
            for (other, value) in values.enumerated() where other != index { rival = max(rival, value) }
            guard values[index] <= rival else { return false }
            // Just above the rival: the other tokens keep their share of what is left, so the
            // timestamp probabilities token timing reads change as little as they can.
            values[index] = rival + max(1e-3, abs(rival) * 1e-5)
            return true
        }
    }

    /// Decodes on the running whisper_full's state.
    private struct StateDecoder: WindowDecoder {
        let context: OpaquePointer
        let state: OpaquePointer
        let library: cwhisper_functions
        let threads: Int32
        let vocabularySize: Int

        func logits(after tokens: [Int32], past: Int) throws -> [Float] {
            guard !tokens.isEmpty, past >= 0 else {
                throw SpeechError.engineFailed(engine: WhisperEngine.engineName, reason: "nothing to decode at position \(past)")
            }
            let status = tokens.withUnsafeBufferPointer {
                library.whisper_decode_with_state(context, state, $0.baseAddress, Int32($0.count), Int32(past), threads)
            }
            guard status == 0, let rows = library.whisper_get_logits_from_state(state) else {
                throw SpeechError.engineFailed(engine: WhisperEngine.engineName, reason: "whisper_decode_with_state failed with code \(status)")
            }
            return Array(UnsafeBufferPointer(start: rows + (tokens.count - 1) * vocabularySize, count: vocabularySize))
        }
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

    private func segments(of context: OpaquePointer) -> [DecodedSegment] {
        (0..<whisper.whisper_full_n_segments(context)).map { s in
            DecodedSegment(
                start: whisper.whisper_full_get_segment_t0(context, s),
                end: whisper.whisper_full_get_segment_t1(context, s),
                noSpeechProbability: whisper.whisper_full_get_segment_no_speech_prob(context, s),
                tokens: (0..<whisper.whisper_full_n_tokens(context, s)).map { t in
                    let data = whisper.whisper_full_get_token_data(context, s, t)
                    return DecodedToken(
                        id: data.id, bytes: tokenBytes(data.id, of: context), probability: data.p,
                        start: data.t0, end: data.t1, dtwTime: data.t_dtw)
                })
        }
    }

    /// The vocabulary's rules for Capforge's decoding settings, built once per model.
    var tokenRules: WhisperTokenRules {
        state.withLock { state in
            if let rules = state.tokenRules { return rules }
            let rules = tokenRules(of: state.context)
            state.tokenRules = rules
            return rules
        }
    }

    private func tokenRules(of context: OpaquePointer) -> WhisperTokenRules {
        let size = Int(whisper.whisper_n_vocab(context))
        var idOf: [String: Int32] = [:]
        for id in 0..<Int32(size) { idOf[String(decoding: tokenBytes(id, of: context), as: UTF8.self)] = id }
        let languages = (0...whisper.whisper_lang_max_id()).map { whisper.whisper_token_lang(context, $0) }
        let never = [whisper.whisper_token_not(context), whisper.whisper_token_sot(context), whisper.whisper_token_nosp(context),
                     whisper.whisper_token_solm(context), whisper.whisper_token_translate(context), whisper.whisper_token_transcribe(context),
                     whisper.whisper_token_prev(context)] + languages
        let defaults = whisper.whisper_full_default_params(WHISPER_SAMPLING_GREEDY)
        return WhisperTokenRules(
            vocabularySize: size, endOfText: endOfText, firstTimestamp: whisper.whisper_token_beg(context),
            neverEmitted: never.filter { $0 >= 0 && Int($0) < size },
            blankAtStart: [endOfText] + (idOf[" "].map { [$0] } ?? []),
            nonSpeech: WhisperTokenRules.nonSpeechTokens(idOf: idOf),
            maxInitialTimestamp: Int((defaults.max_initial_ts / WhisperTokenRules.timestampStep).rounded()))
    }

    /// Tokens libwhisper decodes before a window's first one when no text prompt is given
    /// (start of transcript, then a multilingual model's language and task), and the last of them.
    private func prompt(translating: Bool) -> (length: Int, last: Int32) {
        state.withLock { state in
            guard isMultilingual else { return (1, whisper.whisper_token_sot(state.context)) }
            return (3, translating ? whisper.whisper_token_translate(state.context) : whisper.whisper_token_transcribe(state.context))
        }
    }

    private func tokenCount(_ text: String) -> Int {
        state.withLock { Int(abs(whisper.whisper_tokenize($0.context, text, nil, 0))) }
    }

    func detectLanguage(_ samples: [Float]) throws -> LanguageGuess {
        let probabilities = try state.withLock { try languageProbabilities(of: $0.context, samples, threads: Int32(options.threads)) }
        return try LanguageGuess.likeliest(of: probabilities, language: WhisperLanguages.language(of:))
    }

    private func languageProbabilities(of context: OpaquePointer, _ samples: [Float], threads: Int32) throws -> [Float] {
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
    private func tokenBytes(_ id: Int32, of context: OpaquePointer) -> [UInt8] {
        guard let text = whisper.whisper_token_to_str(context, id) else { return [] }
        return Array(UnsafeRawBufferPointer(start: text, count: strlen(text)))
    }
}

/// The engine's decoding over libwhisper: the language and the prompt as C strings lent for the
/// call, Capforge's beam search in libwhisper's greedy decoder.
extension WhisperContext {
    /// One decoding at a time: the context is single-threaded.
    var windowsAtOnce: Int { 1 }

    /// libwhisper's threads are `options.threads` on every call.
    func shareCores(among windows: Int) {}

    func decode(_ samples: [Float], language: Language?, task: WhisperTask, prompt: String?, redecoding: Bool, passesBefore: Int64?,
                cancellation: Cancellation) throws -> WhisperDecoding {
        var params = parameters(task: task, prompt: prompt, redecoding: redecoding)
        // The beam plans from the first token of a window decoded at temperature 0 with no text
        // prompt; a prompted respelling pass and a re-decode (which samples) stay greedy.
        let beam = options.beamSize > 1 && prompt == nil && !redecoding
            ? beamForcing(task: task, params: params, cancellation: cancellation) : nil
        // "auto": libwhisper detects the language from the first 30 s.
        let decoded = (language?.code ?? "auto").withCString { code in
            (prompt ?? "").withCString { promptText in
                params.language = code
                params.initial_prompt = prompt == nil ? nil : promptText
                return decode(with: params, samples: samples, shouldAbort: cancellation, passesBefore: passesBefore, beam: beam)
            }
        }
        // A decode that completed is kept even when the deadline passed just after it.
        if decoded.status == 0 {
            return WhisperDecoding(segments: beam.map { $0.corrected(decoded.segments) } ?? decoded.segments, stoppedEarly: decoded.stoppedEarly,
                                   beam: beam?.report, language: WhisperLanguages.language(of: decoded.languageID))
        }
        try CancellationCheck(cancellation).check()
        throw SpeechError.engineFailed(engine: WhisperEngine.engineName, reason: "whisper_full failed with code \(decoded.status)")
    }

    private func beamForcing(task: WhisperTask, params: whisper_full_params, cancellation: Cancellation) -> BeamForcing {
        let prompt = prompt(translating: task == .translate)
        return BeamForcing(
            BeamForcing.Setup(
                search: TopKBeamSearch.Shape(width: options.beamSize, maxTokens: Self.maxTokensPerWindow, pruningMargin: Self.beamPruning.margin,
                                             horizon: Self.beamPruning.horizon),
                rules: tokenRules,
                promptLength: prompt.length, promptTail: prompt.last, unsureBelow: Double(params.logprob_thold)),
            shouldStop: { cancellation.isCancelled })
    }

    /// How the beam search prunes: candidates more than 1 nat (a factor of e) behind the step's
    /// best, and beams that have differed from the best for more than 6 tokens. libwhisper's
    /// public API decodes one sequence per state, so every beam re-decodes where it differs:
    /// unpruned, width 5 took 3.5x greedy decoding's time on a 30 s clip. On the long-form
    /// calibration half (tiny.en, one run each) margin 1 / horizon 6 made 134 errors, 2 / 6 139,
    /// and 4 / 8 132 at twice the time of 1 / 6 (greedy: 124). With 1 / 6, width 5 takes 1.8x
    /// greedy's time with tiny.en and 1.2x with base.
    static let beamPruning = (margin: 1.0, horizon: 6)

    /// libwhisper's n_text_ctx / 2 - 4 for every Whisper model (448 text positions).
    static let maxTokensPerWindow = 220

    /// Everything but the language and the prompt's text, which `decode` lends for the call only.
    func parameters(task: WhisperTask, prompt: String?, redecoding: Bool) -> whisper_full_params {
        // Greedy even with a beam: Capforge's beam search picks the tokens the greedy sampler takes.
        var params = whisper.whisper_full_default_params(WHISPER_SAMPLING_GREEDY)
        params.n_threads = Int32(options.threads)
        // Captioning defaults: timestamps on (off wrecks audio past 30 s), no text carried into
        // the next 30 s window (a carried hallucination repeats, and base carrying it skipped
        // repeated sentences: 9-12 % more word errors on held-out long-form speech),
        // non-speech tokens suppressed, temperature fallback on (the library default increment).
        params.no_timestamps = false
        params.token_timestamps = true
        params.no_context = true
        params.n_max_text_ctx = 0
        params.suppress_nst = true
        params.print_progress = false
        params.print_realtime = false
        params.print_timestamps = false
        params.detect_language = false
        params.translate = task == .translate
        if redecoding { params.temperature = params.temperature_inc }

        // The prompt is re-sent in every window (carry_initial_prompt); the text budget holds
        // it and nothing decoded.
        if let prompt {
            params.carry_initial_prompt = true
            params.n_max_text_ctx = Int32(tokenCount(prompt) + 1)
        }
        return params
    }
}
