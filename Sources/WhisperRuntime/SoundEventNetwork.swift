import Foundation

/// The sizes that make FireRedVAD's audio-event model; the network checks every weight against them.
public struct SoundEventDimensions: Sendable, Equatable {
    /// Input features a frame (`KaldiFilterbank.melCount`).
    public var featureCount: Int
    /// Width of the layers between memories.
    public var hiddenWidth: Int
    /// Width of the memories and what flows between blocks.
    public var memoryWidth: Int
    /// Memory blocks: the first on the input layers, each later one on an expand-project pair.
    public var blockCount: Int
    /// Frames each memory reads on either side: `taps - 1` before a frame and `taps` after it.
    public var taps: Int
    /// Outputs a frame: speech, singing, music.
    public var classCount: Int

    public init(featureCount: Int, hiddenWidth: Int, memoryWidth: Int, blockCount: Int, taps: Int, classCount: Int) {
        self.featureCount = featureCount
        self.hiddenWidth = hiddenWidth
        self.memoryWidth = memoryWidth
        self.blockCount = blockCount
        self.taps = taps
        self.classCount = classCount
    }

    /// Why no real model could have these sizes, or nil: bounds with room around the published
    /// model (80, 256, 128, 8, 20, 3), which keep a lying file from sizing huge activations.
    public var implausibility: String? {
        let checks: [(String, Int, ClosedRange<Int>)] = [
            ("features", featureCount, 1...512), ("hidden width", hiddenWidth, 1...4096), ("memory width", memoryWidth, 1...4096),
            ("blocks", blockCount, 1...64), ("memory taps", taps, 2...256), ("classes", classCount, 1...64),
        ]
        guard let (name, value, range) = checks.first(where: { !$0.2.contains($0.1) }) else { return nil }
        return "\(name) = \(value), expected \(range.lowerBound)–\(range.upperBound)"
    }
}

/// FireRedVAD's audio-event network (a DFSMN): normalised features through two ReLU layers,
/// blocks of memory (a depthwise convolution over the frames before and after, added to its
/// input and to the previous block's output), then a ReLU layer and a sigmoid per class.
/// Every frame's output depends only on the `reach` frames around it, so long audio is run a
/// block at a time with that much context and gives the same numbers as in one piece.
public struct SoundEventNetwork: Sendable {
    public let dimensions: SoundEventDimensions
    private let mean: [Float]
    private let scale: [Float]
    private let input: [Linear]
    private let blocks: [Block]
    private let hidden: Linear
    private let output: Linear

    private struct Block {
        /// nil for the first block, whose memory reads the input layers.
        let expand: Linear?
        let project: Linear?
        /// taps × memoryWidth, tap-major: weights for the frames `taps - 1` before to the frame itself...
        let before: [Float]
        /// ...and for the `taps` frames after it.
        let after: [Float]
    }

    /// Weights by name: "cmvn/mean" and "cmvn/scale" [features]; "input_i/weight|bias" (i = 0, 1);
    /// "block_i/memory_before|after" [memoryWidth, taps]; "block_i/expand/weight|bias",
    /// "block_i/project/weight" for i ≥ 1; "hidden/weight|bias"; "output/weight|bias".
    public init(weights: some WeightSource, dimensions d: SoundEventDimensions) throws {
        if let problem = d.implausibility { throw RuntimeError.malformedWeights(name: "dimensions", reason: problem) }
        dimensions = d
        mean = try weights.floats("cmvn/mean", [d.featureCount])
        scale = try weights.floats("cmvn/scale", [d.featureCount])
        input = [try Linear(weights, "input_0", outputs: d.hiddenWidth, inputs: d.featureCount, precision: .float32),
                 try Linear(weights, "input_1", outputs: d.memoryWidth, inputs: d.hiddenWidth, precision: .float32)]
        blocks = try (0 ..< d.blockCount).map { i in
            let name = "block_\(i)"
            // Stored as the model's per-channel kernels, used tap-major: a tap is one vector operation over the channels.
            func kernel(_ side: String) throws -> [Float] {
                let channelMajor = try weights.floats("\(name)/memory_\(side)", [d.memoryWidth, d.taps])
                return (0 ..< d.taps * d.memoryWidth).map { channelMajor[($0 % d.memoryWidth) * d.taps + $0 / d.memoryWidth] }
            }
            return Block(
                expand: i == 0 ? nil : try Linear(weights, "\(name)/expand", outputs: d.hiddenWidth, inputs: d.memoryWidth, precision: .float32),
                project: i == 0 ? nil : Linear(try weights.tensor("\(name)/project/weight", [d.memoryWidth, d.hiddenWidth]), bias: nil, precision: .float32),
                before: try kernel("before"), after: try kernel("after"))
        }
        hidden = try Linear(weights, "hidden", outputs: d.hiddenWidth, inputs: d.memoryWidth, precision: .float32)
        output = try Linear(weights, "output", outputs: d.classCount, inputs: d.hiddenWidth, precision: .float32)
    }

    /// Frames on each side that a frame's output depends on.
    public var reach: (before: Int, after: Int) {
        (dimensions.blockCount * (dimensions.taps - 1), dimensions.blockCount * dimensions.taps)
    }

    /// Each class's probability in each of `frames` frames of `features` (frames × featureCount,
    /// frame-major), frames × classCount. Frames past either end count as zero activations,
    /// as the model does at the ends of the audio.
    public func probabilities(features: [Float], frames: Int) throws -> [Float] {
        let d = dimensions
        guard frames > 0 else { return [] }
        guard features.count == frames * d.featureCount else {
            throw RuntimeError.invalidRequest("\(frames) frames of features are \(frames * d.featureCount) values, not \(features.count)")
        }
        var x = features
        for t in 0 ..< frames {
            for j in 0 ..< d.featureCount { x[t * d.featureCount + j] = (x[t * d.featureCount + j] - mean[j]) * scale[j] }
        }
        var memory = Self.relu(try input[1](Self.relu(try input[0](x, rows: frames)), rows: frames))
        for block in blocks {
            var projected = memory
            if let expand = block.expand, let project = block.project {
                projected = try project(Self.relu(try expand(memory, rows: frames)), rows: frames)
                for i in memory.indices { memory[i] += projected[i] }
            }
            Self.addMemory(of: projected, frames: frames, width: d.memoryWidth, taps: d.taps, before: block.before, after: block.after, into: &memory)
        }
        var scores = try output(Self.relu(try hidden(memory, rows: frames)), rows: frames)
        for i in scores.indices { scores[i] = 1 / (1 + exp(-scores[i])) }
        return scores
    }

    private static func relu(_ values: [Float]) -> [Float] {
        var values = values
        values.withUnsafeMutableBufferPointer { VectorMath.transform($0) { $0.replacing(with: 0, where: $0 .< 0) } }
        return values
    }

    /// out[t] += Σₖ before[k] ⊙ x[t - taps + 1 + k] + Σₖ after[k] ⊙ x[t + 1 + k], channel by
    /// channel, frames outside 0..<frames being zero.
    private static func addMemory(of x: [Float], frames: Int, width: Int, taps: Int, before: [Float], after: [Float], into out: inout [Float]) {
        x.withUnsafeBufferPointer { x in
            before.withUnsafeBufferPointer { before in
                after.withUnsafeBufferPointer { after in
                    out.withUnsafeMutableBufferPointer { out in
                        Parallel.rows(frames) { t in
                            let row = UnsafeMutableBufferPointer(rebasing: out[t * width ..< (t + 1) * width])
                            for k in 0 ..< taps {
                                let earlier = t - taps + 1 + k, later = t + 1 + k
                                if earlier >= 0 {
                                    VectorMath.multiplyAdd(UnsafeBufferPointer(rebasing: before[k * width ..< (k + 1) * width]),
                                                           UnsafeBufferPointer(rebasing: x[earlier * width ..< (earlier + 1) * width]), into: row)
                                }
                                if later < frames {
                                    VectorMath.multiplyAdd(UnsafeBufferPointer(rebasing: after[k * width ..< (k + 1) * width]),
                                                           UnsafeBufferPointer(rebasing: x[later * width ..< (later + 1) * width]), into: row)
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
