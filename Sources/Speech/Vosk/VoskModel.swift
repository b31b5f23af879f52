import CVosk
import Foundation
import Synchronization

/// A loaded Vosk (Kaldi) model. Shareable across threads; each recognizer holds a reference.
final class VoskModel: Sendable {
    /// Unchecked: a C pointer, reached only under the lock that holds it (Vosk documents a model
    /// as shareable between recognizers; the lock costs one uncontended take per recognizer).
    private struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    let directory: URL
    private let handle: Mutex<Handle>
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
        guard let pointer = vosk.vosk_model_new(directory.path) else {
            throw SpeechError.modelInvalid(
                path: directory.path,
                reason: "Vosk could not load it (missing or damaged files); replace the directory with a fresh copy of the model")
        }
        self.directory = directory
        handle = Mutex(Handle(pointer: pointer))
    }

    deinit {
        handle.withLock { vosk.vosk_model_free($0.pointer) }
    }

    /// A new recognizer's handle (the caller frees it); nil when Vosk cannot make one.
    func newRecognizer(sampleRate: Float) -> OpaquePointer? {
        handle.withLock { vosk.vosk_recognizer_new($0.pointer, sampleRate) }
    }
}
