import Foundation

/// Reads what `models list` shows from a ggml Whisper file without loading it.
enum WhisperModelFile {
    static func hyperparameters(at url: URL) throws -> WhisperHyperparameters {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let header = try handle.read(upToCount: WhisperHyperparameters.byteCount) ?? Data()
        guard let hparams = WhisperHyperparameters(header: header) else {
            throw ModelImportError.malformed(path: url.path, reason: "no ggml Whisper header")
        }
        return hparams
    }
}
