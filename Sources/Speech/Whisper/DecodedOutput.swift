/// One token of whisper's output, copied out of the context. Times are centiseconds from
/// the start of the decoded buffer; `dtwTime` is -1 unless DTW ran.
struct DecodedToken: Equatable, Sendable {
    var id: Int32
    var bytes: [UInt8]
    var probability: Float
    var start: Int64
    var end: Int64
    var dtwTime: Int64
}

/// One whisper segment with its tokens (special and timestamp tokens included).
struct DecodedSegment: Equatable, Sendable {
    var start: Int64
    var end: Int64
    var noSpeechProbability: Float
    var tokens: [DecodedToken]
    /// Drawn at a temperature above 0 because the greedy decoding failed its checks (known on
    /// Capforge's runtime only; libwhisper does not say).
    var sampled = false
}
