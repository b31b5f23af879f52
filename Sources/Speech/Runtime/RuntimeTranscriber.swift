import CapforgeCore
import Foundation
import WhisperRuntime

/// libwhisper 1.8.5's `whisper_full` with Capforge's settings (timestamps and token timing on,
/// no text carried between windows, non-speech tokens suppressed, temperature fallback), run on
/// Capforge's own network: window after window from the start of the audio, each decoded at
/// temperature 0 and, when the decoding fails libwhisper's checks, again at 0.2, 0.4, ... with
/// five sampled sequences, the best kept. One departure: words a window leaves to a window of
/// their own although the audio ends inside it are decoded from the same encoder pass, when that
/// decoding reaches the end of the audio. The output has libwhisper's shape (`DecodedSegment`),
/// so everything WhisperEngine does after the library runs applies unchanged.
struct RuntimeTranscriber {
    let model: RuntimeWhisperModel

    struct Request {
        /// nil for an English-only model.
        var language: String?
        var translating = false
        /// Start at the first fallback temperature (a loop decoded again, as libwhisper's caller asks).
        var redecoding = false
        /// Centiseconds into the audio: a window after the first starts only while the last
        /// segment so far ends before this (the rest is heard by the next chunk).
        var passesBefore: Int64?
    }

    // libwhisper's defaults for the greedy strategy.
    static let temperatureStep: Float = 0.2
    static let bestOf = 5
    static let entropyThreshold = 2.4
    static let logProbabilityThreshold = -1.0
    static let noSpeechThreshold: Float = 0.6
    static let timestampProbabilityThreshold: Float = 0.01
    /// A window is not started for the last 100 ms (frames).
    static let lastFrames = 10
    static let windowFrames = LogMelSpectrogram.windowFrames

    /// The segments of `samples` (16 kHz mono); `stoppedEarly` when `passesBefore` refused a
    /// window; `encoderPasses`: the windows encoded (the bulk of the time).
    func run(_ samples: [Float], _ request: Request, cancellation: Cancellation) throws
        -> (segments: [DecodedSegment], stoppedEarly: Bool, encoderPasses: Int) {
        let vocabulary = model.vocabulary, network = model.network
        let mel = try LogMelSpectrogram(samples: samples, melCount: network.dimensions.melCount)
        // Frames that hold audio (libwhisper's n_len_org).
        let seekEnd = max(0, 1 + (samples.count + 200 - 400) / LogMelSpectrogram.hop)
        let prompt = try vocabulary.prompt(language: request.language, translating: request.translating)
        let temperatures = stride(from: request.redecoding ? Self.temperatureStep : 0, through: 1 + 1e-6, by: Self.temperatureStep).map { $0 }
        var generators = (0 ..< Self.bestOf).map { SplitMix64(seed: UInt64($0)) }
        var timing = TokenTiming(energy: TokenTiming.energy(of: samples), endOfText: vocabulary.endOfText, firstTimestamp: vocabulary.firstTimestamp)
        var segments: [DecodedSegment] = []
        var seek = 0
        var windows = 0
        // The rest is the next chunk's to hear.
        func leftToNextChunk() -> Bool {
            guard let before = request.passesBefore, let last = segments.last else { return false }
            return last.end >= before
        }
        while seek + Self.lastFrames < seekEnd {
            if windows > 0, leftToNextChunk() {
                return (segments, true, windows)
            }
            windows += 1
            let encoded = try network.encode(mel.window(at: seek))
            var best: Sequence?
            var noSpeech: Float = 0
            for temperature in temperatures {
                var start = try network.decoding(encoded)
                let scores = try start.logits(after: prompt, past: 0)
                noSpeech = Self.softmax(scores)[Int(vocabulary.noCaptions)]
                var sequences = (0 ..< (temperature > 0 ? Self.bestOf : 1)).map { _ in Sequence(decoding: start, sampled: temperature > 0) }
                try decode(&sequences, scores: scores, from: 0, promptLength: prompt.count, temperature: temperature, generators: &generators,
                           seek: seek, seekEnd: seekEnd, cancellation: cancellation)
                var bestIndex = 0, bestScore = -Double.infinity
                for j in sequences.indices where !sequences[j].failed {
                    sequences[j].score()
                    if sequences[j].failed { continue }
                    if sequences[j].meanLogProbability > bestScore {
                        bestScore = sequences[j].meanLogProbability
                        bestIndex = j
                    }
                }
                let chosen = sequences[bestIndex]
                if !(chosen.failed || (chosen.meanLogProbability < Self.logProbabilityThreshold && noSpeech < Self.noSpeechThreshold)) {
                    best = chosen
                    break
                }
                // Every temperature failing keeps the likeliest attempt that did not loop, as
                // faster-whisper does, not libwhisper's last random draw: a draw at 1.0 over
                // tones the speech detector calls speech is fluent words out of nothing.
                if best == nil || Self.preferred(chosen, over: best!) { best = chosen }
            }
            guard let best else { break }
            let noSpeechWindow = noSpeech > Self.noSpeechThreshold && best.meanLogProbability < Self.logProbabilityThreshold
            if !best.tokens.isEmpty, !noSpeechWindow {
                segments += timing.segments(of: best.tokens, seek: seek, seekDelta: best.seekDelta, noSpeechProbability: noSpeech, vocabulary: vocabulary)
                    .map { segment in
                        var segment = segment
                        segment.sampled = best.sampled
                        return segment
                    }
            }
            var seekDelta = best.nextWindow(seek: seek, seekEnd: seekEnd, firstTimestamp: vocabulary.firstTimestamp)
            // The window left its last words to a window of their own although the audio ends
            // inside it (a chunk planned to end at a pause): they are decoded from this encoder
            // pass instead of paying another (a 5.6-minute reading: 16 passes instead of 19).
            if !noSpeechWindow, seek + seekDelta + Self.lastFrames < seekEnd, seekEnd <= seek + Self.windowFrames, !leftToNextChunk(),
               let rest = try continuation(of: encoded, prompt: prompt, from: seekDelta, seek: seek, seekEnd: seekEnd, cancellation: cancellation) {
                segments += timing.segments(of: rest.tokens, seek: seek, seekDelta: rest.seekDelta, noSpeechProbability: noSpeech, vocabulary: vocabulary)
                seekDelta = rest.nextWindow(seek: seek, seekEnd: seekEnd, firstTimestamp: vocabulary.firstTimestamp)
            }
            seek += seekDelta
        }
        return (segments, false, windows)
    }

    /// The tokens a window may hold (libwhisper's n_text_ctx / 2 - 4).
    private var maxTokens: Int { model.network.dimensions.textContext / 2 - 4 }

    /// libwhisper's decoding loop: every sequence still active takes its next token from its
    /// scores, steps `firstStep`..., the token of step i at position `promptLength + i`, until
    /// each has ended or failed. `scores` are every sequence's scores for `firstStep`.
    private func decode(
        _ sequences: inout [Sequence], scores first: [Float], from firstStep: Int, promptLength: Int, temperature: Float,
        generators: inout [SplitMix64], seek: Int, seekEnd: Int, cancellation: Cancellation
    ) throws {
        var scores = Array(repeating: first, count: sequences.count)
        for i in firstStep ..< maxTokens {
            try CancellationCheck(cancellation).check()
            for j in sequences.indices where sequences[j].active {
                let token = sample(scores[j], after: sequences[j].tokens.map(\.id), temperature: temperature, generator: &generators[j])
                sequences[j].tokens.append(token)
                sequences[j].advance(by: token, step: i, seek: seek, seekEnd: seekEnd, maxTokens: maxTokens, vocabulary: model.vocabulary)
            }
            guard sequences.contains(where: \.active) else { break }
            for j in sequences.indices where sequences[j].active {
                scores[j] = try sequences[j].decoding.logits(after: [sequences[j].tokens.last!.id], past: promptLength + i)
            }
        }
    }

    /// The audio of an encoded window from `delta` frames on, decoded greedily after the
    /// timestamp there (forced, as a decoding prefix), or nil when that decoding fails the
    /// window's checks or hears no words: then a window of its own hears it, as before.
    private func continuation(
        of encoded: EncodedWindow, prompt: [Int32], from delta: Int, seek: Int, seekEnd: Int, cancellation: Cancellation
    ) throws -> Sequence? {
        let vocabulary = model.vocabulary
        let forced = vocabulary.firstTimestamp + Int32(delta / 2)
        var sequence = Sequence(decoding: try model.network.decoding(encoded), sampled: false)
        let scores = try sequence.decoding.logits(after: prompt + [forced], past: 0)
        let start = SampledToken(id: forced, tid: forced, probability: 1, logProbability: 0, timestampProbability: 1, timestampSum: 1)
        sequence.tokens = [start]
        sequence.advance(by: start, step: 0, seek: seek, seekEnd: seekEnd, maxTokens: maxTokens, vocabulary: vocabulary)
        var sequences = [sequence]
        var unused = [SplitMix64(seed: 0)]
        try decode(&sequences, scores: scores, from: 1, promptLength: prompt.count, temperature: 0, generators: &unused,
                   seek: seek, seekEnd: seekEnd, cancellation: cancellation)
        sequence = sequences[0]
        guard !sequence.failed else { return nil }
        sequence.score()
        // Words it ends before the audio does are timed unreliably (six squeezed into 40 ms at a
        // window's edge, then heard again by the next window): only a decoding that reaches the
        // end of the audio replaces that window.
        let reachesEnd = seek + sequence.nextWindow(seek: seek, seekEnd: seekEnd, firstTimestamp: vocabulary.firstTimestamp) + Self.lastFrames >= seekEnd
        let heardWords = sequence.tokens.contains { $0.id < vocabulary.endOfText }
        guard !sequence.failed, heardWords, reachesEnd, sequence.meanLogProbability >= Self.logProbabilityThreshold else { return nil }
        return sequence
    }

    /// One window decoded at temperature 0 from `prompt` and nothing else (no fallback, no
    /// seeking): the likeliest allowed token each step, until the end of text (included) or
    /// the window's token budget.
    func greedy(_ decoding: inout WindowDecoding, prompt: [Int32]) throws -> [SampledToken] {
        var logits = try decoding.logits(after: prompt, past: 0)
        var tokens: [SampledToken] = []
        var unused = SplitMix64(seed: 0)
        while tokens.count < maxTokens {
            let token = sample(logits, after: tokens.map(\.id), temperature: 0, generator: &unused)
            tokens.append(token)
            if token.id == model.vocabulary.endOfText { break }
            logits = try decoding.logits(after: [token.id], past: prompt.count + tokens.count - 1)
        }
        return tokens
    }

    /// The next token after `prefix`: the likeliest allowed one at temperature 0, else drawn
    /// from the allowed tokens' probabilities at that temperature.
    private func sample(_ logits: [Float], after prefix: [Int32], temperature: Float, generator: inout SplitMix64) -> SampledToken {
        let scaled = temperature > 0 ? logits.map { $0 / temperature } : logits
        let logProbabilities = model.vocabulary.rules.logProbabilities(scaled, after: prefix)
        func probability(_ i: Int) -> Float { logProbabilities[i] > -.infinity ? Foundation.exp(logProbabilities[i]) : 0 }
        let beg = Int(model.vocabulary.firstTimestamp)
        var timestampSum: Double = 0, timestampMax: Double = 0
        var token = SampledToken(id: 0, tid: 0, probability: 0, logProbability: 0, timestampProbability: 0, timestampSum: 0)
        for i in beg ..< logProbabilities.count {
            let p = Double(probability(i))
            timestampSum += p
            if timestampMax < p {
                timestampMax = p
                token.tid = Int32(i)
            }
        }
        token.timestampProbability = Float(timestampMax / (timestampSum + 1e-10))
        token.timestampSum = Float(timestampSum)
        var chosen = 0
        if temperature > 0 {
            let probabilities = logProbabilities.indices.map(probability)
            var draw = Double(generator.next() >> 11) / Double(1 << 53) * probabilities.reduce(0) { $0 + Double($1) }
            chosen = probabilities.count - 1
            for (i, p) in probabilities.enumerated() where p > 0 {
                draw -= Double(p)
                if draw < 0 {
                    chosen = i
                    break
                }
            }
        } else {
            // The likeliest: the largest log-probability (the first of equals, as libwhisper).
            for i in logProbabilities.indices where logProbabilities[i] > logProbabilities[chosen] { chosen = i }
        }
        token.id = Int32(chosen)
        token.probability = probability(chosen)
        token.logProbability = logProbabilities[chosen]
        if chosen >= beg {
            token.tid = token.id
            token.timestampProbability = token.probability
        }
        return token
    }

    private static func preferred(_ a: Sequence, over b: Sequence) -> Bool {
        a.failed != b.failed ? !a.failed : a.meanLogProbability > b.meanLogProbability
    }

    static func softmax(_ logits: [Float]) -> [Float] {
        WhisperTokenRules.logSoftmax(logits).map { $0 > -.infinity ? Foundation.exp($0) : 0 }
    }

    /// One decoding of a window, with libwhisper's bookkeeping of where it ends.
    private struct Sequence {
        var decoding: WindowDecoding
        let sampled: Bool
        var tokens: [SampledToken] = []
        var resultLength = 0
        /// Frames into the window of the last timestamp decoded (the whole window until one is).
        var seekDelta = RuntimeTranscriber.windowFrames
        var hasTimestamp = false
        var failed = false
        var completed = false
        var meanLogProbability = -Double.infinity

        var active: Bool { !failed && !completed }

        init(decoding: WindowDecoding, sampled: Bool) {
            self.decoding = decoding
            self.sampled = sampled
        }

        mutating func advance(by token: SampledToken, step i: Int, seek: Int, seekEnd: Int, maxTokens: Int, vocabulary: RuntimeVocabulary) {
            if token.id > vocabulary.firstTimestamp {
                let delta = 2 * Int(token.id - vocabulary.firstTimestamp)
                // Time never goes back.
                if hasTimestamp, seekDelta > delta, resultLength < i {
                    failed = true
                    return
                }
                seekDelta = delta
                resultLength = i + 1
                hasTimestamp = true
            }
            let atAudioEnd = seek + seekDelta + RuntimeTranscriber.lastFrames >= seekEnd
            if token.id == vocabulary.endOfText || (hasTimestamp && atAudioEnd) {
                if resultLength == 0 {
                    guard atAudioEnd else {
                        failed = true
                        return
                    }
                    resultLength = i + 1
                }
                completed = true
                return
            }
            // Stuck in a loop: the window's budget ran out before half of it was heard.
            if i == maxTokens - 1, resultLength == 0 || seekDelta < RuntimeTranscriber.windowFrames / 2 {
                failed = true
            }
        }

        /// The mean log-probability of the kept tokens, and failed when more than 32 were kept and
        /// the last 32 repeat too much (their entropy below `entropyThreshold`: a loop).
        mutating func score() {
            tokens = Array(tokens.prefix(resultLength))
            guard resultLength > 0 else { return }
            meanLogProbability = tokens.reduce(0.0) { $0 + Double($1.logProbability) } / Double(resultLength)
            let tail = tokens.suffix(32)
            var counts: [Int32: Int] = [:]
            for token in tail { counts[token.id, default: 0] += 1 }
            let entropy = counts.values.reduce(0.0) { sum, count in
                let p = Double(count) / Double(tail.count)
                return sum - p * Foundation.log(p)
            }
            if resultLength > 32, entropy < RuntimeTranscriber.entropyThreshold { failed = true }
        }

        /// Where the next window opens, in frames after this one's start: at the last timestamp
        /// decoded, or past the whole window when the decoding ends on one timestamp (its speech
        /// ran on past it).
        func nextWindow(seek: Int, seekEnd: Int, firstTimestamp: Int32) -> Int {
            if tokens.count > 1, tokens[tokens.count - 2].id < firstTimestamp, tokens[tokens.count - 1].id > firstTimestamp {
                return min(seekEnd - seek, RuntimeTranscriber.windowFrames)
            }
            return seekDelta
        }
    }
}

/// One decoded token with what libwhisper's token timing reads: the likeliest timestamp
/// (`tid`), its share of the timestamp probability and the timestamps' total.
struct SampledToken {
    var id: Int32
    var tid: Int32
    var probability: Float
    var logProbability: Float
    var timestampProbability: Float
    var timestampSum: Float
}

/// A small seeded generator, so a fallback's sampling repeats run to run.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
