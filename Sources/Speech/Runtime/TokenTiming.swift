/// Segments of a decoded window and the times of their tokens, as libwhisper 1.8.5 makes them
/// (`whisper_full`'s segment split and `whisper_exp_compute_token_level_timestamps`): a
/// segment ends at each timestamp token; inside it, a token whose likeliest timestamp is sure
/// enough and later than the last pins its start, the tokens between pins share the time by
/// their letters (punctuation and digits weigh more), and each token's edges move to where the
/// audio's energy crosses half its local mean. Times are centiseconds from the audio's start.
/// One difference: libwhisper reads the energy at a time measured from the segment's start as
/// if it were from the audio's start; here it is read where the token is.
struct TokenTiming {
    /// Mean absolute sample over ±32 samples.
    let energy: [Float]
    let endOfText: Int32
    let firstTimestamp: Int32
    // Carried from segment to segment, as libwhisper's state does.
    private var begin: Int64 = 0
    private var last: Int64 = 0
    private var lastTimestamp: Int32 = 0

    init(energy: [Float], endOfText: Int32, firstTimestamp: Int32) {
        self.energy = energy
        self.endOfText = endOfText
        self.firstTimestamp = firstTimestamp
    }

    static func energy(of samples: [Float], halfWindow: Int = 32) -> [Float] {
        var result = [Float](repeating: 0, count: samples.count)
        var sum: Float = 0
        for i in 0 ..< min(samples.count, halfWindow) { sum += abs(samples[i]) }
        for i in samples.indices {
            if i + halfWindow < samples.count { sum += abs(samples[i + halfWindow]) }
            if i - halfWindow - 1 >= 0 { sum -= abs(samples[i - halfWindow - 1]) }
            result[i] = max(0, sum) / Float(2 * halfWindow + 1)
        }
        return result
    }

    /// The segments of one window's tokens, which start at frame `seek`; the last segment,
    /// unless closed by a timestamp, ends at `seek + seekDelta`.
    mutating func segments(of tokens: [SampledToken], seek: Int, seekDelta: Int, noSpeechProbability: Float,
                           vocabulary: RuntimeVocabulary) -> [DecodedSegment] {
        var segments: [DecodedSegment] = []
        let seek = Int64(seek)
        var start = seek + 2 * Int64(tokens[0].tid - firstTimestamp)
        var first = 0
        var hasText = false
        var i = 0
        while i < tokens.count {
            if tokens[i].id < endOfText { hasText = true }
            if tokens[i].id > firstTimestamp {
                let end = seek + 2 * Int64(tokens[i].tid - firstTimestamp)
                if hasText {
                    segments.append(segment(Array(tokens[first ... i]), start: start, end: end, noSpeechProbability: noSpeechProbability, vocabulary: vocabulary))
                }
                hasText = false
                start = end
                while i + 1 < tokens.count, tokens[i + 1].id > firstTimestamp {
                    i += 1
                    start = seek + 2 * Int64(tokens[i].tid - firstTimestamp)
                }
                first = i + 1
            }
            i += 1
        }
        if hasText {
            segments.append(segment(Array(tokens[first...]), start: start, end: seek + Int64(seekDelta), noSpeechProbability: noSpeechProbability,
                                    vocabulary: vocabulary))
        }
        return segments
    }

    private mutating func segment(_ tokens: [SampledToken], start t0: Int64, end t1: Int64, noSpeechProbability: Float,
                                  vocabulary: RuntimeVocabulary) -> DecodedSegment {
        var times = timed(tokens, start: t0, end: t1, vocabulary: vocabulary)
        if times.isEmpty { times = tokens.map { _ in (t0, t1) } }
        return DecodedSegment(
            start: t0, end: t1, noSpeechProbability: noSpeechProbability,
            tokens: tokens.indices.map { j in
                DecodedToken(id: tokens[j].id, bytes: vocabulary.bytes(of: tokens[j].id), probability: tokens[j].probability,
                             start: times[j].start, end: times[j].end, dtwTime: -1)
            })
    }

    private mutating func timed(_ tokens: [SampledToken], start t0: Int64, end t1: Int64, vocabulary: RuntimeVocabulary) -> [(start: Int64, end: Int64)] {
        let n = tokens.count
        guard n > 1 else { return n == 1 ? [(t0, t1)] : [] }
        var start = [Int64](repeating: -1, count: n), end = [Int64](repeating: -1, count: n)
        var length = [Double](repeating: 0, count: n)
        for j in 0 ..< n {
            let token = tokens[j]
            if j == 0 {
                if token.id == firstTimestamp {
                    start[0] = t0
                    end[0] = t0
                    start[1] = t0
                    begin = t0
                    last = t0
                    lastTimestamp = firstTimestamp
                } else {
                    start[0] = last
                }
            }
            let pinned = begin + 2 * Int64(token.tid - firstTimestamp)
            length[j] = Self.voiceLength(vocabulary.libwhisperSpelling(of: token.id))
            if token.timestampProbability > RuntimeTranscriber.timestampProbabilityThreshold,
               token.timestampSum > RuntimeTranscriber.timestampProbabilityThreshold, token.tid > lastTimestamp, pinned <= t1 {
                if j > 0 { end[j - 1] = pinned }
                start[j] = pinned
                lastTimestamp = token.tid
            }
        }
        end[n - 2] = t1
        start[n - 1] = t1
        end[n - 1] = t1
        last = t1
        // Unpinned runs share their time by voice length.
        var p0 = 0, p1 = 0
        while true {
            while p1 < n, end[p1] < 0 { p1 += 1 }
            if p1 >= n { p1 -= 1 }
            let total = p1 > p0 ? length[p0 ... p1].reduce(0, +) : 0
            if total > 0 {
                let span = Double(end[p1] - start[p0])
                for j in p0 + 1 ... p1 {
                    let cut = Int64(Double(start[j - 1]) + span * length[j - 1] / total)
                    end[j - 1] = cut
                    start[j] = cut
                }
            }
            p1 += 1
            p0 = p1
            if p1 >= n { break }
        }
        for j in 0 ..< n - 1 {
            if end[j] < 0 { start[j + 1] = end[j] }
            if j > 0, end[j - 1] > start[j] {
                start[j] = end[j - 1]
                end[j] = max(start[j], end[j])
            }
        }
        // Edges moved to where the sound's energy crosses half its mean around the token.
        let samples = energy.count
        guard samples > 0 else { return (0 ..< n).map { (start[$0], end[$0]) } }
        let halfWindow = 16_000 / 8
        func sample(_ t: Int64) -> Int { max(0, min(samples - 1, Int(t * 160))) }
        func time(_ s: Int) -> Int64 { Int64(s) * 100 / 16_000 }
        for j in 0 ..< n where tokens[j].id < endOfText {
            var s0 = sample(start[j]), s1 = sample(end[j])
            let lo = max(s0 - halfWindow, 0), hi = min(s1 + halfWindow, samples)
            guard hi > lo else { continue }
            var sum: Float = 0
            for k in lo ..< hi { sum += energy[k] }
            let threshold = 0.5 * sum / Float(hi - lo)
            var k = s0
            if energy[k] > threshold, j > 0 {
                while k > 0, energy[k] > threshold { k -= 1 }
                start[j] = time(k)
                if start[j] < end[j - 1] { start[j] = end[j - 1] } else { s0 = k }
            } else {
                while energy[k] < threshold, k < s1 { k += 1 }
                s0 = k
                start[j] = time(k)
            }
            k = s1
            if energy[k] > threshold {
                while k < samples - 1, energy[k] > threshold { k += 1 }
                end[j] = time(k)
                if j < n - 1, end[j] > start[j + 1] { end[j] = start[j + 1] } else { s1 = k }
            } else {
                while energy[k] < threshold, k > s0 { k -= 1 }
                s1 = k
                end[j] = time(k)
            }
        }
        return (0 ..< n).map { (start[$0], end[$0]) }
    }

    /// libwhisper's weights for sharing a segment's time between tokens.
    static func voiceLength(_ bytes: [UInt8]) -> Double {
        bytes.reduce(0.0) { sum, byte in
            switch byte {
            case UInt8(ascii: " "): return sum + 0.01
            case UInt8(ascii: ","): return sum + 2
            case UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "?"): return sum + 3
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): return sum + 3
            default: return sum + 1
            }
        }
    }
}
