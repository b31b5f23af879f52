import Foundation

/// Whisper's log-mel filterbank: Slaney-scale, Slaney-normalised triangles over the
/// 201 bins of a 400-point FFT at 16 kHz (librosa `filters.mel` defaults).
public enum MelFilterbank {
    public static let fftSize = 400
    public static let binCount = fftSize / 2 + 1
    public static let sampleRate = 16_000.0

    /// `melCount × binCount` weights, row-major.
    public static func weights(melCount: Int) -> [Float] {
        let binHz = (0..<binCount).map { Double($0) * sampleRate / Double(fftSize) }
        let top = hzToMel(sampleRate / 2)
        let edges = (0..<(melCount + 2)).map { melToHz(top * Double($0) / Double(melCount + 1)) }
        var result = [Float](repeating: 0, count: melCount * binCount)
        for m in 0..<melCount {
            let lowerWidth = edges[m + 1] - edges[m]
            let upperWidth = edges[m + 2] - edges[m + 1]
            let norm = 2 / (edges[m + 2] - edges[m])
            for (k, hz) in binHz.enumerated() {
                let rising = (hz - edges[m]) / lowerWidth
                let falling = (edges[m + 2] - hz) / upperWidth
                result[m * binCount + k] = Float(max(0, min(rising, falling)) * norm)
            }
        }
        return result
    }

    // Slaney scale: linear below 1 kHz (200/3 Hz per mel), logarithmic above.
    private static let linearStep = 200.0 / 3
    private static let logStart = 1000.0
    private static let logStartMel = logStart / linearStep
    private static let logStep = log(6.4) / 27

    public static func hzToMel(_ hz: Double) -> Double {
        hz < logStart ? hz / linearStep : logStartMel + log(hz / logStart) / logStep
    }

    public static func melToHz(_ mel: Double) -> Double {
        mel < logStartMel ? mel * linearStep : logStart * exp(logStep * (mel - logStartMel))
    }
}
