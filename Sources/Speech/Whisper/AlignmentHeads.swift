import CWhisper
import WhisperRuntime

/// whisper.cpp's built-in cross-attention heads for DTW, chosen by model size (the same heads
/// CT2's config.json lists for tiny.en and base).
enum AlignmentHeads {
    static func preset(for model: WhisperHyperparameters) -> whisper_alignment_heads_preset {
        let en = !model.isMultilingual
        switch (model.textState, model.textLayers) {
        case (384, 4): return en ? WHISPER_AHEADS_TINY_EN : WHISPER_AHEADS_TINY
        case (512, 6): return en ? WHISPER_AHEADS_BASE_EN : WHISPER_AHEADS_BASE
        case (768, 12): return en ? WHISPER_AHEADS_SMALL_EN : WHISPER_AHEADS_SMALL
        case (1024, 24): return en ? WHISPER_AHEADS_MEDIUM_EN : WHISPER_AHEADS_MEDIUM
        case (1280, 4): return WHISPER_AHEADS_LARGE_V3_TURBO
        case (1280, 32) where model.melCount == 128: return WHISPER_AHEADS_LARGE_V3
        // large v1 and v2 share every dimension; the top text layers work for any model.
        default: return WHISPER_AHEADS_N_TOP_MOST
        }
    }
}
