import CapforgeCore
import Foundation
import Testing
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
                at += nameLength + ne.reduce(1, *) * (type == 1 ? 2 : 4)
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
        #expect(try CT2WhisperConverter.readModelBinary(folder) == whole)

        try FileManager.default.removeItem(at: folder.appendingPathComponent("model.bin.part2"))
        #expect(throws: ModelImportError.missingFile(path: folder.appendingPathComponent("model.bin").path)) {
            try CT2WhisperConverter.readModelBinary(folder)
        }
    }

    @Test func truncatedModelIsRejected() throws {
        let whole = try Data(contentsOf: WhisperFixtures.ct2TinyEn.appendingPathComponent("model.bin"), options: .alwaysMapped)
        #expect(throws: ModelImportError.self) { try CT2Model(data: whole.prefix(1_000_000), path: "cut") }
    }
}
