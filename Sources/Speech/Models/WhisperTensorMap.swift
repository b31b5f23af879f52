/// One ggml tensor and where its values live in a CT2 Whisper model.
struct TensorPlan {
    var name: String
    var source: String
    /// Row block of a fused projection (QKV: 3 parts, cross-attention KV: 2 parts).
    var split: (part: Int, parts: Int)?
    /// Conv biases are stored as [n, 1] so ggml can broadcast them over time.
    var asColumn = false
    /// Positional embeddings stay float32 although they are 2-D.
    var forceFloat32 = false
}

/// whisper.cpp (OpenAI) tensor names → CT2 variables, in a fixed order.
func tensorPlans(encoderLayers: Int, decoderLayers: Int) -> [TensorPlan] {
    var plans: [TensorPlan] = []
    func add(_ name: String, _ source: String, split: (Int, Int)? = nil, asColumn: Bool = false, float32: Bool = false) {
        plans.append(TensorPlan(name: name, source: source, split: split.map { (part: $0.0, parts: $0.1) },
                                asColumn: asColumn, forceFloat32: float32))
    }
    func linear(_ name: String, _ source: String) {
        add("\(name).weight", "\(source)/weight")
        add("\(name).bias", "\(source)/bias")
    }
    func norm(_ name: String, _ source: String) {
        add("\(name).weight", "\(source)/gamma")
        add("\(name).bias", "\(source)/beta")
    }
    // Fused [q;k;v] or [k;v] rows; the key bias is dropped: it shifts every score of a query
    // equally, so softmax cancels it, and whisper.cpp has no tensor for it.
    func selfAttention(_ block: String, _ source: String) {
        norm("\(block).attn_ln", "\(source)/self_attention/layer_norm")
        add("\(block).attn.query.weight", "\(source)/self_attention/linear_0/weight", split: (0, 3))
        add("\(block).attn.query.bias", "\(source)/self_attention/linear_0/bias", split: (0, 3))
        add("\(block).attn.key.weight", "\(source)/self_attention/linear_0/weight", split: (1, 3))
        add("\(block).attn.value.weight", "\(source)/self_attention/linear_0/weight", split: (2, 3))
        add("\(block).attn.value.bias", "\(source)/self_attention/linear_0/bias", split: (2, 3))
        linear("\(block).attn.out", "\(source)/self_attention/linear_1")
    }
    func mlp(_ block: String, _ source: String) {
        norm("\(block).mlp_ln", "\(source)/ffn/layer_norm")
        linear("\(block).mlp.0", "\(source)/ffn/linear_0")
        linear("\(block).mlp.2", "\(source)/ffn/linear_1")
    }

    for conv in ["conv1", "conv2"] {
        add("encoder.\(conv).weight", "encoder/\(conv)/weight")
        add("encoder.\(conv).bias", "encoder/\(conv)/bias", asColumn: true, float32: true)
    }
    add("encoder.positional_embedding", "encoder/position_encodings/encodings", float32: true)
    for i in 0..<encoderLayers {
        selfAttention("encoder.blocks.\(i)", "encoder/layer_\(i)")
        mlp("encoder.blocks.\(i)", "encoder/layer_\(i)")
    }
    norm("encoder.ln_post", "encoder/layer_norm")

    add("decoder.positional_embedding", "decoder/position_encodings/encodings", float32: true)
    add("decoder.token_embedding.weight", "decoder/embeddings/weight")
    for i in 0..<decoderLayers {
        let block = "decoder.blocks.\(i)", source = "decoder/layer_\(i)"
        selfAttention(block, source)
        norm("\(block).cross_attn_ln", "\(source)/attention/layer_norm")
        linear("\(block).cross_attn.query", "\(source)/attention/linear_0")
        add("\(block).cross_attn.key.weight", "\(source)/attention/linear_1/weight", split: (0, 2))
        add("\(block).cross_attn.value.weight", "\(source)/attention/linear_1/weight", split: (1, 2))
        add("\(block).cross_attn.value.bias", "\(source)/attention/linear_1/bias", split: (1, 2))
        linear("\(block).cross_attn.out", "\(source)/attention/linear_2")
        mlp(block, source)
    }
    norm("decoder.ln", "decoder/layer_norm")
    return plans
}
