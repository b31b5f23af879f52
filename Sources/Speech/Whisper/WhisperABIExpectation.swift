import CWhisper

/// Known values of `whisper_full_default_params(GREEDY)` for one whisper.cpp release, spread
/// over the whole struct so a shifted field anywhere shows up.
struct WhisperABIExpectation: Sendable {
    enum Value: Equatable, CustomStringConvertible, Sendable {
        case int(Int)
        case float(Float)
        case bool(Bool)
        case text(String?)

        var description: String {
            switch self {
            case .int(let v): return String(v)
            case .float(let v): return String(v)
            case .bool(let v): return String(v)
            case .text(let v): return v.map { "\"\($0)\"" } ?? "NULL"
            }
        }
    }

    struct Field: Sendable {
        var name: String
        var expected: Value
        var read: @Sendable (whisper_full_params) -> Value
    }

    var release: String
    var fields: [Field]

    func mismatches(in params: whisper_full_params) -> [String] {
        fields.compactMap { field in
            let actual = field.read(params)
            return actual == field.expected ? nil : "\(field.name) is \(actual), expected \(field.expected)"
        }
    }

    static let release1_8_5 = WhisperABIExpectation(release: "1.8.5", fields: [
        Field(name: "strategy", expected: .int(0)) { .int(Int($0.strategy.rawValue)) },
        Field(name: "n_max_text_ctx", expected: .int(16384)) { .int(Int($0.n_max_text_ctx)) },
        Field(name: "offset_ms", expected: .int(0)) { .int(Int($0.offset_ms)) },
        Field(name: "no_context", expected: .bool(true)) { .bool($0.no_context) },
        Field(name: "no_timestamps", expected: .bool(false)) { .bool($0.no_timestamps) },
        Field(name: "print_timestamps", expected: .bool(true)) { .bool($0.print_timestamps) },
        Field(name: "token_timestamps", expected: .bool(false)) { .bool($0.token_timestamps) },
        Field(name: "thold_pt", expected: .float(0.01)) { .float($0.thold_pt) },
        Field(name: "thold_ptsum", expected: .float(0.01)) { .float($0.thold_ptsum) },
        Field(name: "max_len", expected: .int(0)) { .int(Int($0.max_len)) },
        Field(name: "max_tokens", expected: .int(0)) { .int(Int($0.max_tokens)) },
        Field(name: "carry_initial_prompt", expected: .bool(false)) { .bool($0.carry_initial_prompt) },
        Field(name: "prompt_n_tokens", expected: .int(0)) { .int(Int($0.prompt_n_tokens)) },
        Field(name: "language", expected: .text("en")) { .text($0.language.map { String(cString: $0) }) },
        Field(name: "detect_language", expected: .bool(false)) { .bool($0.detect_language) },
        Field(name: "suppress_blank", expected: .bool(true)) { .bool($0.suppress_blank) },
        Field(name: "suppress_nst", expected: .bool(false)) { .bool($0.suppress_nst) },
        Field(name: "temperature", expected: .float(0)) { .float($0.temperature) },
        Field(name: "max_initial_ts", expected: .float(1)) { .float($0.max_initial_ts) },
        Field(name: "length_penalty", expected: .float(-1)) { .float($0.length_penalty) },
        Field(name: "temperature_inc", expected: .float(0.2)) { .float($0.temperature_inc) },
        Field(name: "entropy_thold", expected: .float(2.4)) { .float($0.entropy_thold) },
        Field(name: "logprob_thold", expected: .float(-1)) { .float($0.logprob_thold) },
        Field(name: "no_speech_thold", expected: .float(0.6)) { .float($0.no_speech_thold) },
        Field(name: "greedy.best_of", expected: .int(5)) { .int(Int($0.greedy.best_of)) },
        Field(name: "beam_search.beam_size", expected: .int(-1)) { .int(Int($0.beam_search.beam_size)) },
        Field(name: "beam_search.patience", expected: .float(-1)) { .float($0.beam_search.patience) },
        Field(name: "abort_callback", expected: .bool(false)) { .bool($0.abort_callback != nil) },
        Field(name: "n_grammar_rules", expected: .int(0)) { .int(Int($0.n_grammar_rules)) },
        Field(name: "grammar_penalty", expected: .float(100)) { .float($0.grammar_penalty) },
        Field(name: "vad", expected: .bool(false)) { .bool($0.vad) },
        Field(name: "vad_model_path", expected: .text(nil)) { .text($0.vad_model_path.map { String(cString: $0) }) },
        Field(name: "vad_params.threshold", expected: .float(0.5)) { .float($0.vad_params.threshold) },
        Field(name: "vad_params.min_speech_duration_ms", expected: .int(250)) { .int(Int($0.vad_params.min_speech_duration_ms)) },
        Field(name: "vad_params.min_silence_duration_ms", expected: .int(100)) { .int(Int($0.vad_params.min_silence_duration_ms)) },
        Field(name: "vad_params.max_speech_duration_s", expected: .float(.greatestFiniteMagnitude)) { .float($0.vad_params.max_speech_duration_s) },
        Field(name: "vad_params.speech_pad_ms", expected: .int(30)) { .int(Int($0.vad_params.speech_pad_ms)) },
        Field(name: "vad_params.samples_overlap", expected: .float(0.1)) { .float($0.vad_params.samples_overlap) },
    ])
}
