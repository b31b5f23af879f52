import CapforgeCore
import Foundation
import Testing
@testable import Speech

@Suite("EnergyVAD")
struct EnergyVADTests {
    static let rate = Double(MonoAudio.sampleRate)

    /// `seconds` of silence with 440 Hz tone bursts of `amplitude` over the given spans.
    static func signal(seconds: Double, bursts: [(Double, Double)], amplitude: Float = 0.5, noise: Float = 0) -> [Float] {
        var generator: UInt32 = 12345
        var samples = (0..<Int(seconds * rate)).map { _ -> Float in
            // Deterministic uniform noise in [-noise, noise].
            generator = generator &* 1_664_525 &+ 1_013_904_223
            return noise * (Float(generator) / Float(UInt32.max) * 2 - 1)
        }
        for (from, to) in bursts {
            for i in Int(from * rate)..<Int(to * rate) {
                samples[i] += amplitude * Float(sin(2 * Double.pi * 440 * Double(i) / rate))
            }
        }
        return samples
    }

    static func expect(_ regions: [SpeechRegion], _ expected: [(Double, Double)], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(regions.count == expected.count, "\(regions)", sourceLocation: sourceLocation)
        for (region, (start, end)) in zip(regions, expected) {
            #expect(abs(region.start - start) < 1e-9 && abs(region.end - end) < 1e-9, "\(region) ≠ \(start)–\(end)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test func toneInSilenceGivesOnePaddedRegion() {
        let audio = MonoAudio(samples: Self.signal(seconds: 4, bursts: [(1, 2)]))
        Self.expect(EnergyVAD().speechRegions(in: audio), [(0.9, 2.1)])
    }

    @Test func regionsAreOnTheFileTimeline() {
        let audio = MonoAudio(samples: Self.signal(seconds: 4, bursts: [(1, 2)]), startTime: 100)
        Self.expect(EnergyVAD().speechRegions(in: audio), [(100.9, 102.1)])
    }

    @Test func shortGapsMergeLongGapsCutAndClicksDrop() {
        // 0.5 s gap cuts, 0.2 s gap stays inside, a 30 ms click is not speech.
        let samples = Self.signal(
            seconds: 6, bursts: [(1.0, 1.5), (2.0, 3.0), (3.2, 3.5), (4.5, 4.53)], amplitude: 0.3, noise: 0.001)
        Self.expect(EnergyVAD().speechRegions(in: MonoAudio(samples: samples)), [(0.9, 1.6), (1.9, 3.6)])
    }

    @Test func soundAtTheEdgesIsClampedToTheAudio() {
        // 2.005 s: the last frame is partial and still counts.
        let samples = Self.signal(seconds: 2.005, bursts: [(0, 2.005)])
        Self.expect(EnergyVAD().speechRegions(in: MonoAudio(samples: samples)), [(0, 2.005)])
    }

    @Test func overlongRegionsAreCutAtTheirQuietestFrame() {
        var samples = Self.signal(seconds: 77, bursts: [(1, 76)])
        for dip in [25.0, 50.0] {
            let first = Int(dip * Self.rate)
            for i in first..<first + EnergyVAD.frameSamples { samples[i] *= 0.1 }
        }
        Self.expect(EnergyVAD().speechRegions(in: MonoAudio(samples: samples)), [(0.9, 25), (25, 50), (50, 76.1)])
    }

    @Test func silenceAndEmptyAudioHaveNoRegions() {
        #expect(EnergyVAD().speechRegions(in: MonoAudio(samples: [Float](repeating: 0, count: 48_000))).isEmpty)
        #expect(EnergyVAD().speechRegions(in: MonoAudio(samples: Self.signal(seconds: 3, bursts: [], noise: 0.001))).isEmpty)
        #expect(EnergyVAD().speechRegions(in: MonoAudio(samples: [])).isEmpty)
    }
}
