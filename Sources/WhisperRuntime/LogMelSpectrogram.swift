import Foundation

/// Whisper's input: log10 mel energies of 25 ms frames every 10 ms, clamped to 8 below the
/// loudest and scaled, as libwhisper computes them (its padding and normalisation included),
/// so both runtimes hear the same numbers.
public struct LogMelSpectrogram: Sendable {
    public static let hop = 160
    /// Frames in one 30 s encoder window.
    public static let windowFrames = 3000

    public let melCount: Int
    /// Frames of audio plus the 30 s of silence libwhisper appends.
    public let frameCount: Int
    /// melCount × frameCount, mel-major.
    public let values: [Float]

    /// The spectrogram of 16 kHz mono `samples`.
    public init(samples: [Float], melCount: Int) throws {
        let fft = MelFilterbank.fftSize, bins = MelFilterbank.binCount, half = fft / 2
        self.melCount = melCount
        let padded = samples.count + 30 * Int(MelFilterbank.sampleRate) + 2 * half
        frameCount = (padded - fft) / Self.hop
        // Frames from here on see only the appended silence.
        let heard = min(frameCount, (samples.count + half) / Self.hop + 1)
        var frames = [Float](repeating: 0, count: max(1, heard) * fft)
        let window = Self.hann
        for i in 0 ..< heard {
            for j in 0 ..< fft {
                // Position in the padded signal: `half` reflected samples, the audio, then zeros.
                let p = i * Self.hop + j - half
                let sample: Float
                if p < 0 {
                    sample = -p < samples.count ? samples[-p] : 0
                } else {
                    sample = p < samples.count ? samples[p] : 0
                }
                frames[i * fft + j] = window[j] * sample
            }
        }
        var spectrum = [Float](repeating: 0, count: max(1, heard) * 2 * bins)
        var energies = [Float](repeating: 0, count: max(1, heard) * melCount)
        if heard > 0 {
            try frames.withUnsafeBufferPointer { a in
                try Self.fourierBasis.withUnsafeBufferPointer { b in
                    try spectrum.withUnsafeMutableBufferPointer { c in
                        try MatrixProduct.float(m: heard, n: 2 * bins, k: fft, a: a, b: b, transposedB: true, c: c)
                    }
                }
            }
            var power = [Float](repeating: 0, count: heard * bins)
            for i in 0 ..< heard * bins {
                let re = spectrum[2 * i], im = spectrum[2 * i + 1]
                power[i] = re * re + im * im
            }
            let filters = MelFilterbank.weights(melCount: melCount)
            try power.withUnsafeBufferPointer { a in
                try filters.withUnsafeBufferPointer { b in
                    try energies.withUnsafeMutableBufferPointer { c in
                        try MatrixProduct.float(m: heard, n: melCount, k: bins, a: a, b: b, transposedB: true, c: c)
                    }
                }
            }
        }
        let silent = Float(log10(1e-10))
        var values = [Float](repeating: silent, count: melCount * frameCount)
        var loudest = heard < frameCount ? silent : -Float.infinity
        for i in 0 ..< heard {
            for m in 0 ..< melCount {
                let v = log10(max(energies[i * melCount + m], 1e-10))
                values[m * frameCount + i] = v
                loudest = max(loudest, v)
            }
        }
        let floor = loudest - 8
        for i in values.indices { values[i] = (max(values[i], floor) + 4) / 4 }
        self.values = values
    }

    /// One encoder window's input: `windowFrames` frames from `offset` (zeros past the end).
    public func window(at offset: Int) -> [Float] {
        var out = [Float](repeating: 0, count: melCount * Self.windowFrames)
        let from = min(max(0, offset), frameCount), to = min(offset + Self.windowFrames, frameCount)
        guard from < to else { return out }
        for m in 0 ..< melCount {
            for i in from ..< to { out[m * Self.windowFrames + i - from] = values[m * frameCount + i] }
        }
        return out
    }

    /// Periodic Hann window, as torch.hann_window and libwhisper.
    private static let hann: [Float] = (0 ..< MelFilterbank.fftSize).map {
        Float(0.5 * (1 - cos(2 * Double.pi * Double($0) / Double(MelFilterbank.fftSize))))
    }

    /// Rows 2k and 2k+1: the real and imaginary parts of DFT bin k, so one matrix product
    /// takes every frame's spectrum (400 points is not a power of two).
    private static let fourierBasis: [Float] = {
        let n = MelFilterbank.fftSize
        var basis = [Float](repeating: 0, count: 2 * MelFilterbank.binCount * n)
        for k in 0 ..< MelFilterbank.binCount {
            for j in 0 ..< n {
                let angle = 2 * Double.pi * Double((k * j) % n) / Double(n)
                basis[(2 * k) * n + j] = Float(cos(angle))
                basis[(2 * k + 1) * n + j] = Float(-sin(angle))
            }
        }
        return basis
    }()
}
