import CPocketSphinx
import Foundation

/// One word as the decoder reports it: frames (10 ms) relative to the start of the utterance.
struct DecodedWord: Equatable {
    var text: String
    var startFrame: Int
    /// Inclusive, as `ps_seg_frames` gives it.
    var endFrame: Int
    var probability: Double
}

/// Owns a `cmd_ln_t` and the `ps_decoder_t` built from it. Not thread-safe: one caller at a time.
final class PocketSphinxDecoder {
    static let engineName = "pocketsphinx"

    private let arguments: [UnsafeMutablePointer<CChar>?]
    private let config: OpaquePointer
    private let decoder: OpaquePointer

    init(model: PocketSphinxModel) throws {
        let options = [
            "-hmm", model.acousticModel.path, "-lm", model.languageModel.path, "-dict", model.dictionary.path,
            // The built-in silence removal drops frames, so word frames would no longer map
            // to audio time; segmentation is done by EnergyVAD instead.
            "-remove_silence", "no",
            // Word confidences (ps_seg_prob) are only computed by the best-path search.
            "-bestpath", "yes",
            "-logfn", "/dev/null",
        ]
        let arguments = options.map { strdup($0) }
        let freeArguments = { for pointer in arguments { free(pointer) } }
        var argv = arguments
        guard let config = argv.withUnsafeMutableBufferPointer({
            cmd_ln_parse_r(nil, ps_args(), Int32($0.count), $0.baseAddress, 1)
        }) else {
            freeArguments()
            throw SpeechError.engineFailed(
                engine: Self.engineName, reason: "the decoder configuration was rejected (cmd_ln_parse_r)")
        }
        guard let decoder = ps_init(config) else {
            cmd_ln_free_r(config)
            freeArguments()
            throw SpeechError.modelInvalid(
                path: model.acousticModel.deletingLastPathComponent().path,
                reason: "PocketSphinx could not load its acoustic model, language model or dictionary")
        }
        self.arguments = arguments
        self.config = config
        self.decoder = decoder
    }

    deinit {
        ps_free(decoder)
        cmd_ln_free_r(config)
        for pointer in arguments { free(pointer) }
    }

    /// Decodes one utterance given whole.
    ///
    /// A new stream per utterance makes segment frames count from this utterance (otherwise
    /// they are stream-wide, off by 100 ms more per earlier utterance). Giving the audio in
    /// one full-utterance call keeps the model's batch cepstral mean normalisation, computed
    /// from this utterance alone; fed in blocks, PocketSphinx switches to live normalisation
    /// for good and results start to depend on what was decoded before.
    func decodeUtterance(_ samples: [Int16]) throws -> [DecodedWord] {
        try check(ps_start_stream(decoder), "ps_start_stream")
        try check(ps_start_utt(decoder), "ps_start_utt")
        let searched = samples.withUnsafeBufferPointer {
            ps_process_raw(decoder, $0.baseAddress, $0.count, 0, 1)
        }
        if searched < 0 {
            _ = ps_end_utt(decoder)
            try check(searched, "ps_process_raw")
        }
        try check(ps_end_utt(decoder), "ps_end_utt")
        return segments()
    }

    private func segments() -> [DecodedWord] {
        let logmath = ps_get_logmath(decoder)
        var words: [DecodedWord] = []
        // ps_seg_next frees the iterator when it returns nil, so a full walk needs no ps_seg_free.
        var segment = ps_seg_iter(decoder)
        while let current = segment {
            var startFrame: Int32 = 0
            var endFrame: Int32 = 0
            ps_seg_frames(current, &startFrame, &endFrame)
            var acoustic: Int32 = 0
            var language: Int32 = 0
            var backoff: Int32 = 0
            let logProbability = ps_seg_prob(current, &acoustic, &language, &backoff)
            if let text = ps_seg_word(current) {
                words.append(DecodedWord(
                    text: String(cString: text), startFrame: Int(startFrame), endFrame: Int(endFrame),
                    probability: logmath_exp(logmath, logProbability)))
            }
            segment = ps_seg_next(current)
        }
        return words
    }

    private func check(_ code: Int32, _ function: String) throws {
        guard code >= 0 else {
            throw SpeechError.engineFailed(engine: Self.engineName, reason: "\(function) returned \(code)")
        }
    }
}
