import CVosk
import Foundation

/// A loaded Vosk (Kaldi) model. Shareable across threads; each recognizer holds a reference.
/// Unchecked: an opaque C handle, which Vosk documents as safe to share between recognizers.
final class VoskModel: @unchecked Sendable {
    let directory: URL
    let handle: OpaquePointer
    let vosk: cvosk_functions

    /// Loading reads the whole model into memory (the Korean model: ~3 s, ~550 MB).
    init(directory: URL) throws {
        guard FileManager.default.fileExists(atPath: directory.path) else {
            throw SpeechError.modelMissing(
                path: directory.path,
                hint: "download a Vosk model directory (e.g. vosk-model-small-en-us-0.15) into the models directory")
        }
        vosk = try VoskLibrary.functions()
        vosk.vosk_set_log_level(-1)
        guard let handle = vosk.vosk_model_new(directory.path) else {
            throw SpeechError.modelInvalid(
                path: directory.path,
                reason: "Vosk could not load it (missing or damaged files); replace the directory with a fresh copy of the model")
        }
        self.directory = directory
        self.handle = handle
    }

    deinit {
        vosk.vosk_model_free(handle)
    }
}
