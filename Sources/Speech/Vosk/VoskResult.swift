import Foundation

/// The parts of a Vosk result JSON (`vosk_recognizer_set_words` on) that Capforge uses.
/// Times are seconds since the start of the recognizer's stream.
struct VoskResult: Decodable, Equatable {
    struct Word: Decodable, Equatable {
        var word: String
        var start: Double
        var end: Double
        var conf: Double
    }

    /// Absent when the utterance held no words.
    var result: [Word]?

    static func parse(_ json: String) throws -> VoskResult {
        do {
            return try JSONDecoder().decode(VoskResult.self, from: Data(json.utf8))
        } catch {
            throw SpeechError.engineFailed(
                engine: VoskRecognizer.engineName, reason: "unreadable result JSON (\(error)): \(json.prefix(200))")
        }
    }
}
