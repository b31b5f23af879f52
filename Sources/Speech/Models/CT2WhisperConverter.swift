import CapforgeCore
import WhisperRuntime
import Foundation

/// Converts a CTranslate2 (faster-whisper) Whisper model folder into whisper.cpp's ggml format:
/// 2-D weight matrices in `weights`, convolution kernels in float16, norms, biases and
/// positional embeddings in float32.
///
/// Nothing is sized from the file before it is checked: the dimensions must be plausible for a
/// Whisper model (`WhisperHyperparameters.implausibility`) and every tensor must have exactly
/// the shape they imply, so the work and memory of an import follow the bytes really there.
public enum CT2WhisperConverter {
    /// `vocabulary.txt` is about 0.4 MB for every Whisper model.
    static let vocabularyByteLimit = 8_000_000

    /// The ggml file's bytes for the model in `directory`; the same input always gives the
    /// same bytes.
    public static func convert(directory: URL, weights: WeightEncoding = .f16) throws -> Data {
        let (bytes, path) = try readModelBinary(directory)
        let model = try CT2Model(data: bytes, path: path)
        guard model.spec == "WhisperSpec" else {
            throw ModelImportError.unsupported(path: path, reason: "it holds a \(model.spec), not a Whisper model")
        }
        var hparams = try hyperparameters(of: model)
        hparams.fileType = weights.fileType
        let vocabularyURL = directory.appendingPathComponent("vocabulary.txt")
        let tokens = try ByteLevelVocabulary.tokens(
            fromVocabularyFile: try regularFile(vocabularyURL) { try UserFile.read(vocabularyURL, what: "vocabulary", limit: vocabularyByteLimit) },
            path: vocabularyURL.path, atMost: hparams.vocabularySize)
        // The kind of model the embeddings make (English-only or multilingual) fixes where <|endoftext|> is.
        guard tokens.count == hparams.textTokenCount else {
            throw ModelImportError.malformed(path: vocabularyURL.path, reason: "its <|endoftext|> is on line \(tokens.count + 1), where "
                + "\(hparams.isMultilingual ? "a multilingual" : "an English-only") model (\(hparams.vocabularySize) token embeddings) has it "
                + "on line \(hparams.textTokenCount + 1): the vocabulary is another model's")
        }

        var writer = GGMLWriter()
        writer.header(hparams)
        writer.melFilters(MelFilterbank.weights(melCount: hparams.melCount), melCount: hparams.melCount)
        writer.vocabulary(tokens)
        for plan in tensorPlans(encoderLayers: hparams.audioLayers, decoderLayers: hparams.textLayers) {
            try write(plan, from: model, shape: hparams.shape(ofTensor: plan.name), weights: weights, into: &writer)
        }
        return writer.data
    }

    /// `model.bin` (mapped), or the two halves a size-limited package split it into, with the
    /// path its errors name.
    static func readModelBinary(_ directory: URL) throws -> (data: Data, path: String) {
        var info = stat()
        if stat(directory.path, &info) == 0, info.st_mode & S_IFMT != S_IFDIR {
            throw ModelImportError.unsupported(path: directory.path, reason: "it is not a folder; give the folder of a CTranslate2 (faster-whisper) model")
        }
        let whole = directory.appendingPathComponent("model.bin")
        let parts = [1, 2].map { directory.appendingPathComponent("model.bin.part\($0)") }
        // lstat, not stat: a link to a missing file is there, and says so when it is opened.
        func present(_ url: URL) -> Bool { var info = stat(); return lstat(url.path, &info) == 0 }
        if present(whole) || !parts.allSatisfy(present) {
            return (try regularFile(whole) { try mapped(whole) }, whole.path)
        }
        var joined = try regularFile(parts[0]) { try mapped(parts[0]) }
        joined.append(try regularFile(parts[1]) { try mapped(parts[1]) })
        return (joined, "\(parts[0].path) + \(parts[1].lastPathComponent)")
    }

    static func hyperparameters(of model: CT2Model) throws -> WhisperHyperparameters {
        let embeddings = try model.variable("decoder/embeddings/weight").shape
        let audioPositions = try model.variable("encoder/position_encodings/encodings").shape
        let textPositions = try model.variable("decoder/position_encodings/encodings").shape
        let conv1 = try model.variable("encoder/conv1/weight").shape
        guard embeddings.count == 2, audioPositions.count == 2, textPositions.count == 2, conv1.count == 3 else {
            throw ModelImportError.malformed(path: model.path, reason: "unexpected tensor ranks")
        }
        let hparams = WhisperHyperparameters(
            vocabularySize: embeddings[0], audioContext: audioPositions[0], audioState: audioPositions[1],
            audioHeads: try model.scalar("encoder/num_heads"),
            audioLayers: try model.layerCount(prefix: "encoder/", maximum: WhisperHyperparameters.maximumLayers),
            textContext: textPositions[0], textState: embeddings[1],
            textHeads: try model.scalar("decoder/num_heads"),
            textLayers: try model.layerCount(prefix: "decoder/", maximum: WhisperHyperparameters.maximumLayers),
            melCount: conv1[1], fileType: 1)
        if let problem = hparams.implausibility {
            throw ModelImportError.malformed(path: model.path, reason: "its dimensions are implausible for a Whisper model (\(problem))")
        }
        return hparams
    }

    /// Writes one tensor, which must have `shape` (a fused projection: that many rows per part).
    private static func write(_ plan: TensorPlan, from model: CT2Model, shape: [Int], weights: WeightEncoding, into writer: inout GGMLWriter) throws {
        var variable = try model.variable(plan.source)
        let parts = plan.split?.parts ?? 1
        let expected = [shape[0] * parts] + shape.dropFirst()
        guard variable.shape == expected else {
            throw ModelImportError.malformed(
                path: model.path, reason: "variable \(plan.source) has shape \(variable.shape), the model's other tensors imply \(expected)")
        }
        let scaleName = scaleName(of: plan.source)
        var scales = try model.variables[scaleName].map { scale -> [Float] in
            // CTranslate2 scales int8 weights row by row.
            guard scale.shape == [expected[0]], scale.dtype != .int8 else {
                throw ModelImportError.malformed(path: model.path, reason: "variable \(scaleName) is not one scale per row of \(plan.source)")
            }
            return try scale.floatValues(rowScales: nil, path: model.path)
        }
        if let split = plan.split {
            variable = variable.rows(part: split.part, of: split.parts)
            scales = scales.map { s in Array(s[split.part * s.count / split.parts ..< (split.part + 1) * s.count / split.parts]) }
        }
        let ggmlShape = plan.asColumn ? variable.shape + [1] : variable.shape
        // whisper.cpp creates every 2-D weight in the file's weight type and the 3-D
        // convolution kernels in float16, whatever the file type.
        let type: GGMLStorageType = plan.forceFloat32 || ggmlShape.count < 2 ? .f32 : ggmlShape.count == 2 ? weights.tensorType : .f16
        writer.tensor(name: plan.name, shape: ggmlShape, type: type,
                      payload: try variable.encoded(as: type, rowScales: scales, path: model.path))
    }

    private static func scaleName(of source: String) -> String {
        source.hasSuffix("/weight") ? String(source.dropLast("weight".count)) + "weight_scale" : source + "_scale"
    }

    /// Runs `read` on a file of the folder, with its problems told as import errors: only a
    /// regular file is opened (a FIFO would block, /dev/zero never ends).
    static func regularFile(_ url: URL, _ read: () throws -> Data) throws -> Data {
        do {
            return try read()
        } catch UserFileError.missing {
            throw ModelImportError.missingFile(path: url.path)
        } catch UserFileError.notAFile(_, _, let kind) {
            throw ModelImportError.unreadable(path: url.path, reason: "it is a \(kind), not a regular file")
        } catch UserFileError.tooLarge(_, _, let limit) {
            throw ModelImportError.unsupported(path: url.path, reason: "it is larger than \(limit / 1_000_000) MB, far more than such a file holds")
        } catch UserFileError.unreadable(_, _, let reason) {
            throw ModelImportError.unreadable(path: url.path, reason: reason)
        }
    }

    /// The file mapped read-only: a model is hundreds of megabytes, and only what is converted
    /// is paged in.
    private static func mapped(_ url: URL) throws -> Data {
        let (handle, size) = try UserFile.openRegular(url, what: "model")
        defer { try? handle.close() }
        guard size > 0 else { return Data() }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, handle.fileDescriptor, 0), base != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw UserFileError.unreadable(path: url.path, what: "model", reason: String(cString: strerror(errno)))
        }
        return Data(bytesNoCopy: base, count: size, deallocator: .custom { pointer, count in munmap(pointer, count) })
    }
}
