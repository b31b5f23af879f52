import CapforgeCore
import Testing
@testable import Speech

@Suite struct TranscriptionTimingTests {
    /// Whisper pays a whole window for a short file and, per 30 s of a long one, about 1.8
    /// windows chunked (1.15 on the runtime, whose chunks each cost about what the probe's clip did),
    /// 1.25 with `--one-pass` and 1.2 for the whole file in one go.
    @Test func theEstimateCountsWindows() {
        let timing = TranscriptionTiming(load: 0.5, window: 1.0)
        var options = TranscriptionOptions()
        #expect(abs(timing.estimate(duration: 10, basic: false, options: options) - 1) < 1e-9)
        #expect(abs(timing.estimate(duration: 300, basic: false, options: options) - 18) < 1e-9)
        // A window's share of two heard side by side, but a file of one chunk heard alone.
        let runtime = TranscriptionTiming(load: 0.5, window: 1.0, onRuntime: true, loneWindow: 1.5)
        #expect(abs(runtime.estimate(duration: 300, basic: false, options: options) - 11.5) < 1e-9)
        #expect(abs(runtime.estimate(duration: 10, basic: false, options: options) - 1.5) < 1e-9)
        #expect(abs(timing.estimate(duration: 300, basic: true, options: options) - 10) < 1e-9)
        options.onePass = true
        #expect(abs(timing.estimate(duration: 300, basic: false, options: options) - 12.5) < 1e-9)
        options.chunking = false
        #expect(abs(timing.estimate(duration: 300, basic: false, options: options) - 12) < 1e-9)
        #expect(abs(timing.estimate(duration: 10, basic: false, options: options) - 1) < 1e-9)
        // The language vote hears up to three windows, one for a short file.
        let voting = TranscriptionTiming(load: 0.5, window: 1.0, detection: 0.25)
        #expect(abs(voting.estimate(duration: 10, basic: false, options: options) - (1 + 0.25)) < 1e-9)
        #expect(abs(voting.estimate(duration: 300, basic: false, options: options) - (12 + 0.75)) < 1e-9)
    }
}
