import CVosk
import Foundation

/// One Vosk recognition stream over a model. Not thread-safe: one caller at a time.
final class VoskRecognizer {
    static let engineName = "vosk"

    private let model: VoskModel
    private let handle: OpaquePointer

    init(model: VoskModel, sampleRate: Int) throws {
        guard let handle = model.newRecognizer(sampleRate: Float(sampleRate)) else {
            throw SpeechError.engineFailed(
                engine: Self.engineName, reason: "could not create a recognizer for the model at \(model.directory.path)")
        }
        model.vosk.vosk_recognizer_set_words(handle, 1)
        self.model = model
        self.handle = handle
    }

    deinit {
        model.vosk.vosk_recognizer_free(handle)
    }

    /// Feeds samples already scaled to the int16 range. Returns the finished utterance's JSON
    /// when Vosk reached an endpoint: it must be taken now, the next call starts a new one.
    func accept(_ samples: ArraySlice<Float>) throws -> String? {
        let status = samples.withUnsafeBufferPointer {
            model.vosk.vosk_recognizer_accept_waveform_f(handle, $0.baseAddress, Int32($0.count))
        }
        switch status {
        case 0: return nil
        case 1: return try json(model.vosk.vosk_recognizer_result(handle), "vosk_recognizer_result")
        default:
            throw SpeechError.engineFailed(
                engine: Self.engineName, reason: "vosk_recognizer_accept_waveform_f returned \(status)")
        }
    }

    /// Flushes the stream and returns the last utterance's JSON.
    func finish() throws -> String {
        try json(model.vosk.vosk_recognizer_final_result(handle), "vosk_recognizer_final_result")
    }

    private func json(_ text: UnsafePointer<CChar>?, _ function: String) throws -> String {
        guard let text else {
            throw SpeechError.engineFailed(engine: Self.engineName, reason: "\(function) returned no result")
        }
        return String(cString: text)
    }
}
