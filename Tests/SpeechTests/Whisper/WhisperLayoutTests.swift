import CWhisper
import Testing

/// Pins the project header to upstream whisper.h v1.8.5: sizes and offsets measured with
/// offsetof/sizeof against the upstream header (shared/notes/whisper-stack.md §2.2).
@Suite struct WhisperLayoutTests {
    private func offset<T>(_ path: PartialKeyPath<T>) -> Int? { MemoryLayout<T>.offset(of: path) }

    @Test func fullParams() {
        typealias P = whisper_full_params
        #expect(MemoryLayout<P>.size == 304)
        let expected: [(PartialKeyPath<P>, Int, String)] = [
            (\P.strategy, 0, "strategy"), (\P.n_threads, 4, "n_threads"), (\P.n_max_text_ctx, 8, "n_max_text_ctx"),
            (\P.offset_ms, 12, "offset_ms"), (\P.duration_ms, 16, "duration_ms"),
            (\P.translate, 20, "translate"), (\P.no_context, 21, "no_context"), (\P.no_timestamps, 22, "no_timestamps"),
            (\P.single_segment, 23, "single_segment"), (\P.print_special, 24, "print_special"),
            (\P.print_progress, 25, "print_progress"), (\P.print_realtime, 26, "print_realtime"),
            (\P.print_timestamps, 27, "print_timestamps"), (\P.token_timestamps, 28, "token_timestamps"),
            (\P.thold_pt, 32, "thold_pt"), (\P.thold_ptsum, 36, "thold_ptsum"), (\P.max_len, 40, "max_len"),
            (\P.split_on_word, 44, "split_on_word"), (\P.max_tokens, 48, "max_tokens"), (\P.debug_mode, 52, "debug_mode"),
            (\P.audio_ctx, 56, "audio_ctx"), (\P.tdrz_enable, 60, "tdrz_enable"), (\P.suppress_regex, 64, "suppress_regex"),
            (\P.initial_prompt, 72, "initial_prompt"), (\P.carry_initial_prompt, 80, "carry_initial_prompt"),
            (\P.prompt_tokens, 88, "prompt_tokens"), (\P.prompt_n_tokens, 96, "prompt_n_tokens"),
            (\P.language, 104, "language"), (\P.detect_language, 112, "detect_language"),
            (\P.suppress_blank, 113, "suppress_blank"), (\P.suppress_nst, 114, "suppress_nst"),
            (\P.temperature, 116, "temperature"), (\P.max_initial_ts, 120, "max_initial_ts"),
            (\P.length_penalty, 124, "length_penalty"), (\P.temperature_inc, 128, "temperature_inc"),
            (\P.entropy_thold, 132, "entropy_thold"), (\P.logprob_thold, 136, "logprob_thold"),
            (\P.no_speech_thold, 140, "no_speech_thold"), (\P.greedy.best_of, 144, "greedy.best_of"),
            (\P.beam_search.beam_size, 148, "beam_search.beam_size"), (\P.beam_search.patience, 152, "beam_search.patience"),
            (\P.new_segment_callback, 160, "new_segment_callback"), (\P.new_segment_callback_user_data, 168, "new_segment_callback_user_data"),
            (\P.progress_callback, 176, "progress_callback"), (\P.progress_callback_user_data, 184, "progress_callback_user_data"),
            (\P.encoder_begin_callback, 192, "encoder_begin_callback"), (\P.encoder_begin_callback_user_data, 200, "encoder_begin_callback_user_data"),
            (\P.abort_callback, 208, "abort_callback"), (\P.abort_callback_user_data, 216, "abort_callback_user_data"),
            (\P.logits_filter_callback, 224, "logits_filter_callback"), (\P.logits_filter_callback_user_data, 232, "logits_filter_callback_user_data"),
            (\P.grammar_rules, 240, "grammar_rules"), (\P.n_grammar_rules, 248, "n_grammar_rules"),
            (\P.i_start_rule, 256, "i_start_rule"), (\P.grammar_penalty, 264, "grammar_penalty"),
            (\P.vad, 268, "vad"), (\P.vad_model_path, 272, "vad_model_path"), (\P.vad_params, 280, "vad_params"),
        ]
        for (path, want, name) in expected {
            #expect(offset(path) == want, "whisper_full_params.\(name)")
        }
    }

    @Test func contextParams() {
        typealias C = whisper_context_params
        #expect(MemoryLayout<C>.size == 48)
        let expected: [(PartialKeyPath<C>, Int, String)] = [
            (\C.use_gpu, 0, "use_gpu"), (\C.flash_attn, 1, "flash_attn"), (\C.gpu_device, 4, "gpu_device"),
            (\C.dtw_token_timestamps, 8, "dtw_token_timestamps"), (\C.dtw_aheads_preset, 12, "dtw_aheads_preset"),
            (\C.dtw_n_top, 16, "dtw_n_top"), (\C.dtw_aheads.n_heads, 24, "dtw_aheads.n_heads"),
            (\C.dtw_aheads.heads, 32, "dtw_aheads.heads"), (\C.dtw_mem_size, 40, "dtw_mem_size"),
        ]
        for (path, want, name) in expected {
            #expect(offset(path) == want, "whisper_context_params.\(name)")
        }
    }

    @Test func tokenData() {
        typealias T = whisper_token_data
        #expect(MemoryLayout<T>.size == 56)
        let expected: [(PartialKeyPath<T>, Int, String)] = [
            (\T.id, 0, "id"), (\T.tid, 4, "tid"), (\T.p, 8, "p"), (\T.plog, 12, "plog"), (\T.pt, 16, "pt"),
            (\T.ptsum, 20, "ptsum"), (\T.t0, 24, "t0"), (\T.t1, 32, "t1"), (\T.t_dtw, 40, "t_dtw"), (\T.vlen, 48, "vlen"),
        ]
        for (path, want, name) in expected {
            #expect(offset(path) == want, "whisper_token_data.\(name)")
        }
    }

    @Test func smallStructs() {
        #expect(MemoryLayout<whisper_vad_params>.size == 24)
        #expect(MemoryLayout<whisper_vad_params>.offset(of: \.max_speech_duration_s) == 12)
        #expect(MemoryLayout<whisper_vad_params>.offset(of: \.samples_overlap) == 20)
        #expect(MemoryLayout<whisper_aheads>.size == 16)
        #expect(MemoryLayout<whisper_ahead>.size == 8)
        #expect(MemoryLayout<whisper_greedy_params>.size == 4)
        #expect(MemoryLayout<whisper_beam_search_params>.size == 8)
    }

    @Test func vadContextParams() {
        typealias V = whisper_vad_context_params
        #expect(MemoryLayout<V>.size == 12)
        #expect(MemoryLayout<V>.offset(of: \V.n_threads) == 0)
        #expect(MemoryLayout<V>.offset(of: \V.use_gpu) == 4)
        #expect(MemoryLayout<V>.offset(of: \V.gpu_device) == 8)
    }
}
