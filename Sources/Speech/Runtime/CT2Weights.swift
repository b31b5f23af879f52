import Foundation
import WhisperRuntime

/// A CTranslate2 model's variables as the runtime's weights: float16 and float32 as stored,
/// int8 with the row scales CTranslate2 keeps beside them.
extension CT2Model: WeightSource {
    func weight(_ name: String) throws -> WeightTensor {
        let variable = try variable(name)
        switch variable.dtype {
        case .float32: return WeightTensor(shape: variable.shape, storage: .float32(variable.bytes))
        case .float16: return WeightTensor(shape: variable.shape, storage: .float16(variable.bytes))
        case .int8:
            let scaleName = name.hasSuffix("/weight") ? String(name.dropLast("weight".count)) + "weight_scale" : name + "_scale"
            let scale = try self.variable(scaleName)
            guard scale.dtype == .float32 || scale.dtype == .float16 else {
                throw ModelImportError.malformed(path: path, reason: "variable \(scaleName) is not a float")
            }
            let scales = try scale.floatValues(rowScales: nil, path: path)
            return WeightTensor(shape: variable.shape, storage: .int8(variable.bytes, rowScales: scales))
        case .int16, .int32, .bfloat16:
            throw ModelImportError.unsupported(path: path, reason: "variable \(name) is stored as \(variable.dtype), which Capforge's runtime does not read")
        }
    }
}

/// A Whisper model loaded for Capforge's own runtime: the network and the vocabulary that
/// names its tokens, from a CTranslate2 folder or an installed ggml model file.
public struct RuntimeWhisperModel: Sendable {
    public let network: WhisperNetwork
    let vocabulary: RuntimeVocabulary

    public init(contentsOf url: URL, precision: WeightPrecision = .preferred) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            let (bytes, path) = try CT2WhisperConverter.readModelBinary(url)
            let model = try CT2Model(data: bytes, path: path)
            guard model.spec == "WhisperSpec" else {
                throw ModelImportError.unsupported(path: path, reason: "it holds a \(model.spec), not a Whisper model")
            }
            let hyperparameters = try CT2WhisperConverter.hyperparameters(of: model)
            vocabulary = try RuntimeVocabulary(directory: url, size: hyperparameters.vocabularySize)
            network = try Self.network(model, hyperparameters, precision) { ModelImportError.malformed(path: path, reason: $0) }
        } else {
            guard let layout = try WhisperModelFile.layout(at: url, keepingVocabulary: true) else {
                throw SpeechError.modelInvalid(path: url.path, reason: "it is not a ggml Whisper model")
            }
            let hyperparameters = layout.hyperparameters
            vocabulary = try RuntimeVocabulary(ggmlTokens: layout.vocabulary, size: hyperparameters.vocabularySize, path: url.path)
            // A ggml file's faults are the installed model's, not a CTranslate2 folder's.
            network = try Self.network(try GGMLWeights(url: url, layout: layout), hyperparameters, precision) {
                SpeechError.modelInvalid(path: url.path, reason: $0)
            }
        }
    }

    /// `invalid`: the model's fault, as the file it came from is named.
    private static func network(_ weights: some WeightSource, _ hyperparameters: WhisperHyperparameters, _ precision: WeightPrecision,
                                invalid: (String) -> Error) throws -> WhisperNetwork {
        do {
            return try WhisperNetwork(weights: weights, dimensions: hyperparameters, precision: precision)
        } catch let error as RuntimeError {
            throw invalid(error.description)
        }
    }
}
