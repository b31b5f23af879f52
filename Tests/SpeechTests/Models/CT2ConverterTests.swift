import CapforgeCore
import Foundation
import Testing
import WhisperRuntime
@testable import Speech

@Suite(.serialized) struct CT2ConverterTests {
    /// The table of a ggml file as whisper.cpp's loader walks it.
    struct GGMLTable {
        var hparams: WhisperHyperparameters
        var mel: (count: Int, bins: Int, first: [Float])
        var vocabulary: [[UInt8]]
        var tensors: [(name: String, ne: [Int], type: Int)]

        init(_ data: Data) throws {
            var at = 0
            func i32() -> Int {
                defer { at += 4 }
                return Int(data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: Int32.self) })
            }
            hparams = try #require(WhisperHyperparameters(header: data))
            at = WhisperHyperparameters.byteCount
            let (count, bins) = (i32(), i32())
            let first = (0..<bins).map { i in data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at + 4 * i, as: Float.self) } }
            mel = (count, bins, first)
            at += count * bins * 4
            vocabulary = (0..<i32()).map { _ in
                let length = i32()
                defer { at += length }
                return Array(data[at..<at + length])
            }
            tensors = []
            while at < data.count {
                let (dims, nameLength, type) = (i32(), i32(), i32())
                let ne = (0..<dims).map { _ in i32() }
                let name = String(decoding: data[at..<at + nameLength], as: UTF8.self)
                let storage = try #require(GGMLStorageType(rawValue: type))
                at += nameLength + ne.reduce(1, *) / storage.blockElements * storage.blockBytes
                tensors.append((name, ne, type))
            }
            #expect(at == data.count)
        }
    }

    @Test func convertingTwiceIsByteIdenticalAndMatchesTheCachedModel() throws {
        let first = try CT2WhisperConverter.convert(directory: WhisperFixtures.ct2TinyEn)
        let second = try CT2WhisperConverter.convert(directory: WhisperFixtures.ct2TinyEn)
        #expect(first == second)
        // The engine tests run on the cache: it must be this converter's output (delete it if not).
        let cached = try Data(contentsOf: try WhisperFixtures.tinyEnModel.get())
        #expect(cached == first, "stale \(WhisperFixtures.cachedModel.path): delete it and rerun")
    }

    @Test func tinyEnLayoutFollowsWhisperCpp() throws {
        let table = try GGMLTable(Data(contentsOf: try WhisperFixtures.tinyEnModel.get()))
        #expect(table.hparams == WhisperHyperparameters(
            vocabularySize: 51864, audioContext: 1500, audioState: 384, audioHeads: 6, audioLayers: 4,
            textContext: 448, textState: 384, textHeads: 6, textLayers: 4, melCount: 80, fileType: 1))
        #expect(!table.hparams.isMultilingual)
        #expect(table.mel.count == 80 && table.mel.bins == 201)
        #expect(table.vocabulary.count == 50256)
        #expect(table.vocabulary[220] == [0x20])                    // "Ġ"
        #expect(table.vocabulary[198] == [0x0A])                    // "Ċ"
        #expect(table.vocabulary[262] == Array(" the".utf8))        // "Ġthe"
        #expect(table.vocabulary[1169] == Array("the".utf8))
        #expect(table.tensors.count == 167)
        #expect(Set(table.tensors.map(\.name)).count == 167)

        let byName = Dictionary(uniqueKeysWithValues: table.tensors.map { ($0.name, $0) })
        #expect(byName["encoder.conv1.weight"]?.ne == [3, 80, 384])
        #expect(byName["encoder.conv1.bias"]?.ne == [1, 384])
        #expect(byName["encoder.blocks.0.attn.query.weight"]?.ne == [384, 384])
        #expect(byName["encoder.blocks.0.attn.key.bias"] == nil)
        #expect(byName["decoder.blocks.3.cross_attn.value.bias"]?.ne == [384])
        #expect(byName["decoder.token_embedding.weight"]?.ne == [384, 51864])
        for tensor in table.tensors {
            let float32 = tensor.ne.count == 1 || tensor.name.hasSuffix("positional_embedding")
                || tensor.name.hasPrefix("encoder.conv") && tensor.name.hasSuffix(".bias")
            #expect(tensor.type == (float32 ? 0 : 1), "\(tensor.name) has ggml type \(tensor.type)")
        }
    }

    @Test func melFilterbankIsSlaney() {
        #expect(abs(MelFilterbank.hzToMel(1000) - 15) < 1e-12)
        #expect(abs(MelFilterbank.melToHz(MelFilterbank.hzToMel(6400)) - 6400) < 1e-9)
        for melCount in [80, 128] {
            let weights = MelFilterbank.weights(melCount: melCount)
            #expect(weights.count == melCount * 201)
            #expect(weights.allSatisfy { $0 >= 0 })
            // Slaney normalisation: each triangle has unit area in Hz (40 Hz per bin); checked
            // on the wide top filters, where 40 Hz sampling resolves the triangle.
            for m in (melCount - 20)..<melCount {
                let area = weights[(m * 201)..<((m + 1) * 201)].reduce(0, +) * 40
                #expect(abs(area - 1) < 0.03, "filter \(m) of \(melCount) has area \(area)")
            }
        }
        // Reference values from faster-whisper 1.2.1's own filterbank (FeatureExtractor.mel_filters).
        let mel80 = MelFilterbank.weights(melCount: 80), mel128 = MelFilterbank.weights(melCount: 128)
        #expect(abs(mel80[0 * 201 + 1] - 0.024862595) < 1e-8)
        #expect(abs(mel80[79 * 201 + 199] - 0.00044875903) < 1e-9)
        #expect(abs(mel80[40 * 201 + 43] - 0.0147355655) < 1e-8)
        #expect(abs(mel128[0 * 201 + 1] - 0.012373987) < 1e-8)
        #expect(abs(mel128[127 * 201 + 199] - 0.0011142802) < 1e-9)
    }

    @Test func splitBaseModelPartsAreJoined() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-split-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let whole = try Data(contentsOf: WhisperFixtures.ct2TinyEn.appendingPathComponent("model.bin"), options: .alwaysMapped)
        let cut = whole.count / 2
        try whole.prefix(cut).write(to: folder.appendingPathComponent("model.bin.part1"))
        try whole.dropFirst(cut).write(to: folder.appendingPathComponent("model.bin.part2"))
        let joined = try CT2WhisperConverter.readModelBinary(folder)
        #expect(joined.data == whole && joined.path == folder.appendingPathComponent("model.bin.part1").path + " + model.bin.part2")

        try FileManager.default.removeItem(at: folder.appendingPathComponent("model.bin.part2"))
        #expect(throws: ModelImportError.missingFile(path: folder.appendingPathComponent("model.bin").path)) {
            try CT2WhisperConverter.readModelBinary(folder)
        }
    }

    @Test func truncatedModelIsRejected() throws {
        let whole = try Data(contentsOf: WhisperFixtures.ct2TinyEn.appendingPathComponent("model.bin"), options: .alwaysMapped)
        #expect(throws: ModelImportError.self) { try CT2Model(data: whole.prefix(1_000_000), path: "cut") }
    }

    /// ggml's dequantizers (dequantize_row_q8_0 / _q5_0), to read back what the quantizers wrote.
    private func dequantized(_ data: Data, as type: WeightEncoding) -> [Float] {
        let bytes = [UInt8](data)
        let blockBytes = type == .q8_0 ? 34 : 22
        return stride(from: 0, to: bytes.count, by: blockBytes).flatMap { at -> [Float] in
            let d = Float(Float16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8))
            if type == .q8_0 { return (0..<32).map { Float(Int8(bitPattern: bytes[at + 2 + $0])) * d } }
            let high = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + 2 + $1]) << (8 * UInt32($1)) }
            let low = bytes[(at + 6)..<(at + 22)]
            let first = low.enumerated().map { j, q in Float(Int(q & 0x0F) | Int((high >> UInt32(j)) & 1) << 4 - 16) * d }
            let second = low.enumerated().map { j, q in Float(Int(q >> 4) | Int((high >> UInt32(j + 16)) & 1) << 4 - 16) * d }
            return first + second
        }
    }

    /// Every value comes back within half a quantization step of its block (plus the float16
    /// rounding of the step itself), and an all-zero block stays zero. q5_0's codes run from
    /// -16 to +15 steps, so a value near the extreme's opposite is clamped: up to a whole step.
    @Test(arguments: [WeightEncoding.q8_0, .q5_0])
    func blockQuantizersRoundTripWithinHalfAStep(type: WeightEncoding) {
        // Blocks: small values, large ones, zeros, and values so tiny that 1/scale overflows.
        let values: [Float] = (0..<128).map { i in i >= 96 ? 1e-40 : i >= 64 ? 0 : sin(Float(i) * 0.7) * (i < 32 ? 0.05 : 3) }
        let data = type == .q8_0 ? BlockQuantizer.q8_0(values) : BlockQuantizer.q5_0(values)
        #expect(data.count == 4 * (type == .q8_0 ? 34 : 22))
        let back = dequantized(data, as: type)
        for block in 0..<3 {
            let slice = values[(block * 32)..<(block * 32 + 32)]
            let amax = slice.map(abs).max()!
            let step = amax / (type == .q8_0 ? 127 : 16)
            let extreme = slice.first { abs($0) == amax }!
            for i in slice.indices {
                let clamped = type == .q5_0 && values[i] * extreme < 0 && abs(values[i]) > 15.5 * step
                #expect(abs(back[i] - values[i]) <= (clamped ? step : step / 2) + amax * 1e-3, "\(type) value \(i): \(values[i]) came back as \(back[i])")
            }
        }
        #expect(back[64...].allSatisfy { $0 == 0 })
    }

    /// A q8_0 import has whisper.cpp's quantized layout: ftype 2007 (q8_0 at quantization
    /// version 2), every 2-D weight in q8_0, the convolution kernels in f16, the rest in f32,
    /// and it passes the model checks at 56 % of the f16 file's size.
    @Test func q8_0ImportQuantizesTheWeightMatrices() throws {
        let url = try WhisperFixtures.tinyEnQ8Model.get()
        let table = try GGMLTable(Data(contentsOf: url))
        #expect(table.hparams.fileType == 2007)
        #expect(table.tensors.count == 167)
        for tensor in table.tensors {
            let float32 = tensor.ne.count == 1 || tensor.name.hasSuffix("positional_embedding")
                || tensor.name.hasPrefix("encoder.conv") && tensor.name.hasSuffix(".bias")
            let expected = float32 ? 0 : tensor.ne.count == 3 ? 1 : 8
            #expect(tensor.type == expected, "\(tensor.name) has ggml type \(tensor.type)")
        }
        #expect(try WhisperModelFile.validated(at: url)?.fileType == 2007)
        // whisper.cpp v1.8.5's own `whisper-quantize ggml-tiny.en.bin out.bin q8_0`, run on the
        // f16 import of the same pinned wheel, wrote a file with this digest (byte-identical).
        #expect(try SHA256.hex(ofFile: url) == "babe4371843b55e04171e75a0495c0a9a0ee699a9081855abd9fb44b695e9349")
        let ratio = Double(try Data(contentsOf: url).count) / Double(try Data(contentsOf: WhisperFixtures.tinyEnModel.get()).count)
        #expect((0.5...0.6).contains(ratio))
    }

    /// A weight that is not a finite number cannot be quantized: the import says so.
    @Test func aNonFiniteWeightStopsAQuantizedImport() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-nan-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in ["config.json", "vocabulary.txt"] {
            try FileManager.default.copyItem(at: WhisperFixtures.ct2TinyEn.appendingPathComponent(file), to: folder.appendingPathComponent(file))
        }
        var whole = try Data(contentsOf: WhisperFixtures.ct2TinyEn.appendingPathComponent("model.bin"))
        let weight = try CT2Model(data: whole, path: "tiny.en").variable("encoder/layer_0/ffn/linear_0/weight")
        #expect(weight.dtype == .float16)
        whole.replaceSubrange(weight.bytes.startIndex..<weight.bytes.startIndex + 2, with: [0x00, 0x7E])  // float16 NaN
        try whole.write(to: folder.appendingPathComponent("model.bin"))
        #expect(throws: ModelImportError.malformed(path: folder.appendingPathComponent("model.bin").path, reason: "a weight is not a finite number")) {
            try CT2WhisperConverter.convert(directory: folder, weights: .q8_0)
        }
    }
}
