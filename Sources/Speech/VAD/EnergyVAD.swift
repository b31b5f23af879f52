import CapforgeCore
import Foundation

/// Finds speech regions from frame energy alone: cheap, deterministic and language-free, but
/// any loud sound counts, music included.
///
/// Engines that decode utterance by utterance segment with it, and the tier orchestrator
/// plans its chunks at the pauses it finds when no Silero model is installed.
public struct EnergyVAD: SpeechDetector {
    public struct Configuration: Sendable, Equatable {
        /// Frames quieter than this share of all frames set the noise floor.
        public var noiseFloorPercentile: Double = 0.10
        /// How far above the noise floor a frame must be to count as sound.
        public var marginDB: Double = 12
        /// Bounds on the threshold in dBFS: digital silence must not make hiss count as
        /// speech, and audio without pauses must not put its own level above the threshold.
        public var thresholdFloorDB: Double = -55
        public var thresholdCeilingDB: Double = -35
        /// Quiet gaps shorter than this stay inside a region.
        public var minimumSilence: Double = 0.30
        /// Regions shorter than this (before padding) are clicks, not speech.
        public var minimumSpeech: Double = 0.10
        /// Context kept on both sides of a region so word edges are not clipped.
        public var padding: Double = 0.10
        /// Longer regions are cut at their quietest frame.
        public var maximumRegion: Double = 30

        public init() {}
    }

    public static let frameSamples = MonoAudio.sampleRate / 100

    public var name: String { "energy" }

    public var configuration: Configuration

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    public func forTiming() throws -> any SpeechDetector {
        var timing = self
        timing.configuration.padding = 0
        timing.configuration.minimumSilence = 0.1
        return timing
    }

    public func speechRegions(in audio: MonoAudio) -> [SpeechRegion] {
        let levels = Self.frameLevelsDB(audio.samples)
        guard !levels.isEmpty else { return [] }
        let threshold = threshold(for: levels)
        let sounding = levels.map { $0 > threshold }

        var regions = Self.runs(of: sounding)
        regions = Self.mergingGaps(in: regions, shorterThan: frames(configuration.minimumSilence))
        regions = regions.filter { $0.count >= frames(configuration.minimumSpeech) }
        regions = Self.padded(regions, by: frames(configuration.padding), limit: levels.count)
        regions = regions.flatMap { split($0, levels: levels) }

        let frameSeconds = Double(Self.frameSamples) / Double(MonoAudio.sampleRate)
        return regions.map { range in
            let endSample = min(range.upperBound * Self.frameSamples, audio.samples.count)
            return SpeechRegion(
                start: audio.startTime + Double(range.lowerBound) * frameSeconds,
                end: audio.startTime + Double(endSample) / Double(MonoAudio.sampleRate))
        }
    }

    /// Mean-square level of each 10 ms frame in dBFS (full scale = 1.0); a last partial frame counts.
    static func frameLevelsDB(_ samples: [Float]) -> [Double] {
        stride(from: 0, to: samples.count, by: frameSamples).map { start in
            let end = min(start + frameSamples, samples.count)
            var sum = 0.0
            for i in start..<end {
                let x = Double(samples[i])
                sum += x.isFinite ? x * x : 0
            }
            return 10 * log10(sum / Double(end - start) + 1e-10)
        }
    }

    private func threshold(for levels: [Double]) -> Double {
        let sorted = levels.sorted()
        let index = min(sorted.count - 1, Int(Double(sorted.count) * configuration.noiseFloorPercentile))
        let relative = sorted[index] + configuration.marginDB
        return min(configuration.thresholdCeilingDB, max(configuration.thresholdFloorDB, relative))
    }

    private func frames(_ seconds: Double) -> Int {
        Int((seconds * 100).rounded())
    }

    private static func runs(of flags: [Bool]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start: Int?
        for (i, flag) in flags.enumerated() {
            if flag, start == nil { start = i }
            if !flag, let s = start {
                result.append(s..<i)
                start = nil
            }
        }
        if let s = start { result.append(s..<flags.count) }
        return result
    }

    private static func mergingGaps(in regions: [Range<Int>], shorterThan gap: Int) -> [Range<Int>] {
        var result: [Range<Int>] = []
        for region in regions {
            if let last = result.last, region.lowerBound - last.upperBound < gap {
                result[result.count - 1] = last.lowerBound..<region.upperBound
            } else {
                result.append(region)
            }
        }
        return result
    }

    private static func padded(_ regions: [Range<Int>], by pad: Int, limit: Int) -> [Range<Int>] {
        let grown = regions.map { max(0, $0.lowerBound - pad)..<min(limit, $0.upperBound + pad) }
        // Padding may make neighbours touch; they then become one region.
        return mergingGaps(in: grown, shorterThan: 1)
    }

    /// Cuts an over-long region at its quietest frame, searched in the second half of the
    /// allowed length so no piece comes out tiny.
    private func split(_ region: Range<Int>, levels: [Double]) -> [Range<Int>] {
        let maximum = max(2, frames(configuration.maximumRegion))
        var pieces: [Range<Int>] = []
        var rest = region
        while rest.count > maximum {
            let window = (rest.lowerBound + maximum / 2)..<(rest.lowerBound + maximum)
            let cut = window.min { levels[$0] < levels[$1] }!
            pieces.append(rest.lowerBound..<cut)
            rest = cut..<rest.upperBound
        }
        pieces.append(rest)
        return pieces
    }
}
