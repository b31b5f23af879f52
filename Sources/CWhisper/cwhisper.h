// The subset of the whisper.cpp 1.8.5 C API that Capforge calls, written by the project
// because the pywhispercpp wheel that ships libwhisper.so.1 carries no header.
//
// The struct layouts MUST match the library exactly: whisper_full_params is passed by value.
// Tests/SpeechTests/Whisper/WhisperLayoutTests.swift pins every size and offset, and
// WhisperLibrary.verifyABI() checks the library's own defaults through these declarations
// at engine start. Update all three together when moving to another whisper.cpp release.
#ifndef CAPFORGE_CWHISPER_H
#define CAPFORGE_CWHISPER_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// ggml types used in whisper's signatures; ggml's headers are not shipped either.
typedef bool (*ggml_abort_callback)(void * user_data);
// `level` is ggml's log-level enum (int-sized): 1 debug, 2 info, 3 warn, 4 error, 5 continuation.
typedef void (*ggml_log_callback)(int level, const char * text, void * user_data);

struct whisper_context;
struct whisper_state;

typedef int32_t whisper_token;

enum whisper_alignment_heads_preset {
    WHISPER_AHEADS_NONE,
    WHISPER_AHEADS_N_TOP_MOST,
    WHISPER_AHEADS_CUSTOM,
    WHISPER_AHEADS_TINY_EN,
    WHISPER_AHEADS_TINY,
    WHISPER_AHEADS_BASE_EN,
    WHISPER_AHEADS_BASE,
    WHISPER_AHEADS_SMALL_EN,
    WHISPER_AHEADS_SMALL,
    WHISPER_AHEADS_MEDIUM_EN,
    WHISPER_AHEADS_MEDIUM,
    WHISPER_AHEADS_LARGE_V1,
    WHISPER_AHEADS_LARGE_V2,
    WHISPER_AHEADS_LARGE_V3,
    WHISPER_AHEADS_LARGE_V3_TURBO,
};

typedef struct whisper_ahead {
    int n_text_layer;
    int n_head;
} whisper_ahead;

typedef struct whisper_aheads {
    size_t n_heads;
    const whisper_ahead * heads;
} whisper_aheads;

struct whisper_context_params {
    bool use_gpu;
    bool flash_attn;
    int  gpu_device;
    bool dtw_token_timestamps;
    enum whisper_alignment_heads_preset dtw_aheads_preset;
    int  dtw_n_top;
    whisper_aheads dtw_aheads;
    size_t dtw_mem_size;
};

typedef struct whisper_token_data {
    whisper_token id;
    whisper_token tid;
    float p;
    float plog;
    float pt;
    float ptsum;
    int64_t t0;     // centiseconds, with token_timestamps
    int64_t t1;
    int64_t t_dtw;  // centiseconds, -1 unless DTW ran
    float vlen;
} whisper_token_data;

typedef struct whisper_vad_params {
    float threshold;
    int   min_speech_duration_ms;
    int   min_silence_duration_ms;
    float max_speech_duration_s;
    int   speech_pad_ms;
    float samples_overlap;
} whisper_vad_params;

enum whisper_sampling_strategy {
    WHISPER_SAMPLING_GREEDY,
    WHISPER_SAMPLING_BEAM_SEARCH,
};

// Callback slots Capforge leaves empty are declared as plain function pointers of the
// same size; abort_callback, encoder_begin_callback and logits_filter_callback are used.
typedef void (*whisper_unused_callback)(void);
// Called before each 30 s encoder pass; false stops the run, keeping what was decoded.
typedef bool (*whisper_encoder_begin_callback)(struct whisper_context * ctx, struct whisper_state * state, void * user_data);
// Called before each token is picked, with the window's tokens so far and the next token's
// logits (n_vocab of them, the task and language tokens already suppressed), which it may change.
typedef void (*whisper_logits_filter_callback)(struct whisper_context * ctx, struct whisper_state * state,
                                               const whisper_token_data * tokens, int n_tokens, float * logits, void * user_data);

// Upstream nests these as anonymous structs; naming them changes no layout.
struct whisper_greedy_params { int best_of; };
struct whisper_beam_search_params { int beam_size; float patience; };

struct whisper_full_params {
    enum whisper_sampling_strategy strategy;

    int n_threads;
    int n_max_text_ctx;
    int offset_ms;
    int duration_ms;

    bool translate;
    bool no_context;
    bool no_timestamps;
    bool single_segment;
    bool print_special;
    bool print_progress;
    bool print_realtime;
    bool print_timestamps;

    bool  token_timestamps;
    float thold_pt;
    float thold_ptsum;
    int   max_len;
    bool  split_on_word;
    int   max_tokens;

    bool debug_mode;
    int  audio_ctx;

    bool tdrz_enable;

    const char * suppress_regex;

    const char * initial_prompt;
    bool carry_initial_prompt;
    const whisper_token * prompt_tokens;
    int prompt_n_tokens;

    const char * language;
    bool detect_language;

    bool suppress_blank;
    bool suppress_nst;

    float temperature;
    float max_initial_ts;
    float length_penalty;

    float temperature_inc;
    float entropy_thold;
    float logprob_thold;
    float no_speech_thold;

    struct whisper_greedy_params greedy;
    struct whisper_beam_search_params beam_search;

    whisper_unused_callback new_segment_callback;
    void * new_segment_callback_user_data;
    whisper_unused_callback progress_callback;
    void * progress_callback_user_data;
    whisper_encoder_begin_callback encoder_begin_callback;
    void * encoder_begin_callback_user_data;
    ggml_abort_callback abort_callback;
    void * abort_callback_user_data;
    whisper_logits_filter_callback logits_filter_callback;
    void * logits_filter_callback_user_data;

    const void * const * grammar_rules;
    size_t n_grammar_rules;
    size_t i_start_rule;
    float  grammar_penalty;

    bool vad;
    const char * vad_model_path;
    whisper_vad_params vad_params;
};

// Silero voice activity detection, run on its own context (not through whisper_full).
struct whisper_vad_context;
struct whisper_vad_segments;

struct whisper_vad_context_params {
    int  n_threads;
    bool use_gpu;
    int  gpu_device;
};

// The functions Capforge calls, looked up in libwhisper when it is opened (cwhisper_bind), so a
// machine without the library still starts and runs the basic tier.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
struct cwhisper_functions {
    const char * (* _Nonnull whisper_version)(void);
    void (* _Nonnull whisper_log_set)(ggml_log_callback log_callback, void * user_data);
    struct whisper_context_params (* _Nonnull whisper_context_default_params)(void);
    struct whisper_context * (* _Nonnull whisper_init_from_file_with_params)(const char * path_model, struct whisper_context_params params);
    void (* _Nonnull whisper_free)(struct whisper_context * ctx);
    struct whisper_full_params (* _Nonnull whisper_full_default_params)(enum whisper_sampling_strategy strategy);
    int (* _Nonnull whisper_full)(struct whisper_context * ctx, struct whisper_full_params params, const float * samples, int n_samples);
    int (* _Nonnull whisper_full_n_segments)(struct whisper_context * ctx);
    int (* _Nonnull whisper_full_lang_id)(struct whisper_context * ctx);
    int64_t (* _Nonnull whisper_full_get_segment_t0)(struct whisper_context * ctx, int i_segment);
    int64_t (* _Nonnull whisper_full_get_segment_t1)(struct whisper_context * ctx, int i_segment);
    float (* _Nonnull whisper_full_get_segment_no_speech_prob)(struct whisper_context * ctx, int i_segment);
    int (* _Nonnull whisper_full_n_tokens)(struct whisper_context * ctx, int i_segment);
    whisper_token_data (* _Nonnull whisper_full_get_token_data)(struct whisper_context * ctx, int i_segment, int i_token);
    int (* _Nonnull whisper_is_multilingual)(struct whisper_context * ctx);
    int (* _Nonnull whisper_lang_max_id)(void);
    const char * (* _Nonnull whisper_lang_str)(int id);
    int (* _Nonnull whisper_pcm_to_mel)(struct whisper_context * ctx, const float * samples, int n_samples, int n_threads);
    int (* _Nonnull whisper_lang_auto_detect)(struct whisper_context * ctx, int offset_ms, int n_threads, float * lang_probs);
    struct whisper_vad_params (* _Nonnull whisper_vad_default_params)(void);
    struct whisper_vad_context_params (* _Nonnull whisper_vad_default_context_params)(void);
    struct whisper_vad_context * (* _Nonnull whisper_vad_init_from_file_with_params)(const char * path_model, struct whisper_vad_context_params params);
    // NULL when detection failed; otherwise free with whisper_vad_free_segments.
    struct whisper_vad_segments * (* _Nonnull whisper_vad_segments_from_samples)(struct whisper_vad_context * vctx, struct whisper_vad_params params, const float * samples, int n_samples);
    int (* _Nonnull whisper_vad_segments_n_segments)(struct whisper_vad_segments * segments);
    // Centiseconds from the first sample.
    float (* _Nonnull whisper_vad_segments_get_segment_t0)(struct whisper_vad_segments * segments, int i_segment);
    float (* _Nonnull whisper_vad_segments_get_segment_t1)(struct whisper_vad_segments * segments, int i_segment);
    void (* _Nonnull whisper_vad_free_segments)(struct whisper_vad_segments * segments);
    void (* _Nonnull whisper_vad_free)(struct whisper_vad_context * ctx);
    // Returns the token count, or minus the count needed when n_max_tokens is too small.
    int (* _Nonnull whisper_tokenize)(struct whisper_context * ctx, const char * text, whisper_token * tokens, int n_max_tokens);
    whisper_token (* _Nonnull whisper_token_eot)(struct whisper_context * ctx);
    whisper_token (* _Nonnull whisper_token_sot)(struct whisper_context * ctx);
    whisper_token (* _Nonnull whisper_token_solm)(struct whisper_context * ctx);
    whisper_token (* _Nonnull whisper_token_prev)(struct whisper_context * ctx);
    whisper_token (* _Nonnull whisper_token_nosp)(struct whisper_context * ctx);
    whisper_token (* _Nonnull whisper_token_not)(struct whisper_context * ctx);
    whisper_token (* _Nonnull whisper_token_beg)(struct whisper_context * ctx);
    whisper_token (* _Nonnull whisper_token_lang)(struct whisper_context * ctx, int lang_id);
    whisper_token (* _Nonnull whisper_token_translate)(struct whisper_context * ctx);
    whisper_token (* _Nonnull whisper_token_transcribe)(struct whisper_context * ctx);
    const char * (* _Nonnull whisper_token_to_str)(struct whisper_context * ctx, whisper_token token);
    int (* _Nonnull whisper_n_vocab)(struct whisper_context * ctx);
    // Decodes `tokens` at positions n_past... of sequence 0 after dropping what the cache held
    // there; the logits of the last token are the last of n_tokens rows. 0 on success.
    int (* _Nonnull whisper_decode_with_state)(struct whisper_context * ctx, struct whisper_state * state, const whisper_token * tokens,
                                              int n_tokens, int n_past, int n_threads);
    float * (* _Nonnull whisper_get_logits_from_state)(struct whisper_state * state);
    // Mel frames (centiseconds) of the audio of the running whisper_full.
    int (* _Nonnull whisper_n_len_from_state)(struct whisper_state * state);
    int (* _Nonnull whisper_full_n_segments_from_state)(struct whisper_state * state);
    int64_t (* _Nonnull whisper_full_get_segment_t1_from_state)(struct whisper_state * state, int i_segment);
};
#pragma clang diagnostic pop

// Fills `functions` from a library opened with dlopen; returns the name of the first function
// the library lacks, or NULL when it has them all.
static inline const char * cwhisper_bind(void * library, struct cwhisper_functions * functions) {
#define CWHISPER_BIND(name) if (!(functions->name = (__typeof__(functions->name))dlsym(library, #name))) return #name
    CWHISPER_BIND(whisper_version);
    CWHISPER_BIND(whisper_log_set);
    CWHISPER_BIND(whisper_context_default_params);
    CWHISPER_BIND(whisper_init_from_file_with_params);
    CWHISPER_BIND(whisper_free);
    CWHISPER_BIND(whisper_full_default_params);
    CWHISPER_BIND(whisper_full);
    CWHISPER_BIND(whisper_full_n_segments);
    CWHISPER_BIND(whisper_full_lang_id);
    CWHISPER_BIND(whisper_full_get_segment_t0);
    CWHISPER_BIND(whisper_full_get_segment_t1);
    CWHISPER_BIND(whisper_full_get_segment_no_speech_prob);
    CWHISPER_BIND(whisper_full_n_tokens);
    CWHISPER_BIND(whisper_full_get_token_data);
    CWHISPER_BIND(whisper_is_multilingual);
    CWHISPER_BIND(whisper_lang_max_id);
    CWHISPER_BIND(whisper_lang_str);
    CWHISPER_BIND(whisper_pcm_to_mel);
    CWHISPER_BIND(whisper_lang_auto_detect);
    CWHISPER_BIND(whisper_vad_default_params);
    CWHISPER_BIND(whisper_vad_default_context_params);
    CWHISPER_BIND(whisper_vad_init_from_file_with_params);
    CWHISPER_BIND(whisper_vad_segments_from_samples);
    CWHISPER_BIND(whisper_vad_segments_n_segments);
    CWHISPER_BIND(whisper_vad_segments_get_segment_t0);
    CWHISPER_BIND(whisper_vad_segments_get_segment_t1);
    CWHISPER_BIND(whisper_vad_free_segments);
    CWHISPER_BIND(whisper_vad_free);
    CWHISPER_BIND(whisper_tokenize);
    CWHISPER_BIND(whisper_token_eot);
    CWHISPER_BIND(whisper_token_sot);
    CWHISPER_BIND(whisper_token_solm);
    CWHISPER_BIND(whisper_token_prev);
    CWHISPER_BIND(whisper_token_nosp);
    CWHISPER_BIND(whisper_token_not);
    CWHISPER_BIND(whisper_token_beg);
    CWHISPER_BIND(whisper_token_lang);
    CWHISPER_BIND(whisper_token_translate);
    CWHISPER_BIND(whisper_token_transcribe);
    CWHISPER_BIND(whisper_token_to_str);
    CWHISPER_BIND(whisper_n_vocab);
    CWHISPER_BIND(whisper_decode_with_state);
    CWHISPER_BIND(whisper_get_logits_from_state);
    CWHISPER_BIND(whisper_n_len_from_state);
    CWHISPER_BIND(whisper_full_n_segments_from_state);
    CWHISPER_BIND(whisper_full_get_segment_t1_from_state);
#undef CWHISPER_BIND
    return NULL;
}

#ifdef __cplusplus
}
#endif

#endif
