import Foundation

/// Converts a CTranslate2 (faster-whisper) Whisper model folder into whisper.cpp's ggml format:
/// 2-D weight matrices in `weights`, convolution kernels in float16, norms, biases and
/// positional embeddings in float32.
public enum CT2WhisperConverter {
    /// The ggml file's bytes for the model in `directory`; the same input always gives the
    /// same bytes.
    public static func convert(directory: URL, weights: WeightEncoding = .f16) throws -> Data {
        let model = try CT2Model(data: try readModelBinary(directory), path: directory.path)
        guard model.spec == "WhisperSpec" else {
            throw ModelImportError.unsupported(path: directory.path, reason: "it holds a \(model.spec), not a Whisper model")
        }
        let vocabularyURL = directory.appendingPathComponent("vocabulary.txt")
        let tokens = try ByteLevelVocabulary.tokens(fromVocabularyFile: try read(vocabularyURL), path: vocabularyURL.path)
        var hparams = try hyperparameters(of: model)
        hparams.fileType = weights.fileType

        var writer = GGMLWriter()
        writer.header(hparams)
        writer.melFilters(MelFilterbank.weights(melCount: hparams.melCount), melCount: hparams.melCount)
        writer.vocabulary(tokens)
        for plan in tensorPlans(encoderLayers: hparams.audioLayers, decoderLayers: hparams.textLayers) {
            try write(plan, from: model, weights: weights, into: &writer)
        }
        return writer.data
    }

    /// `model.bin`, or the two halves a size-limited package split it into.
    static func readModelBinary(_ directory: URL) throws -> Data {
        let whole = directory.appendingPathComponent("model.bin")
        if FileManager.default.fileExists(atPath: whole.path) { return try read(whole, mapped: true) }
        let parts = [1, 2].map { directory.appendingPathComponent("model.bin.part\($0)") }
        guard parts.allSatisfy({ FileManager.default.fileExists(atPath: $0.path) }) else {
            throw ModelImportError.missingFile(path: whole.path)
        }
        var joined = try read(parts[0])
        joined.append(try read(parts[1]))
        return joined
    }

    static func hyperparameters(of model: CT2Model) throws -> WhisperHyperparameters {
        let embeddings = try model.variable("decoder/embeddings/weight").shape
        let audioPositions = try model.variable("encoder/position_encodings/encodings").shape
        let textPositions = try model.variable("decoder/position_encodings/encodings").shape
        let conv1 = try model.variable("encoder/conv1/weight").shape
        guard embeddings.count == 2, audioPositions.count == 2, textPositions.count == 2, conv1.count == 3 else {
            throw ModelImportError.malformed(path: model.path, reason: "unexpected tensor ranks")
        }
        return WhisperHyperparameters(
            vocabularySize: embeddings[0], audioContext: audioPositions[0], audioState: audioPositions[1],
            audioHeads: try model.scalar("encoder/num_heads"), audioLayers: model.layerCount(prefix: "encoder/"),
            textContext: textPositions[0], textState: embeddings[1],
            textHeads: try model.scalar("decoder/num_heads"), textLayers: model.layerCount(prefix: "decoder/"),
            melCount: conv1[1], fileType: 1)
    }

    private static func write(_ plan: TensorPlan, from model: CT2Model, weights: WeightEncoding, into writer: inout GGMLWriter) throws {
        var variable = try model.variable(plan.source)
        var scales = try model.variables[scaleName(of: plan.source)].map {
            try $0.floatValues(rowScales: nil, path: model.path)
        }
        if let split = plan.split {
            variable = variable.rows(part: split.part, of: split.parts)
            scales = scales.map { s in Array(s[split.part * s.count / split.parts ..< (split.part + 1) * s.count / split.parts]) }
        }
        let shape = plan.asColumn ? variable.shape + [1] : variable.shape
        // whisper.cpp creates every 2-D weight in the file's weight type and the 3-D
        // convolution kernels in float16, whatever the file type.
        let type: GGMLStorageType = plan.forceFloat32 || shape.count < 2 ? .f32 : shape.count == 2 ? weights.tensorType : .f16
        writer.tensor(name: plan.name, shape: shape, type: type,
                      payload: try variable.encoded(as: type, rowScales: scales, path: model.path))
    }

    private static func scaleName(of source: String) -> String {
        source.hasSuffix("/weight") ? String(source.dropLast("weight".count)) + "weight_scale" : source + "_scale"
    }

    private static func read(_ url: URL, mapped: Bool = false) throws -> Data {
        guard FileManager.default.fileExists(atPath: url.path) else { throw ModelImportError.missingFile(path: url.path) }
        do {
            return try Data(contentsOf: url, options: mapped ? .alwaysMapped : [])
        } catch {
            throw ModelImportError.unreadable(path: url.path, reason: error.localizedDescription)
        }
    }
}
