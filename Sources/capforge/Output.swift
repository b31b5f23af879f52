import Foundation
import Media
import Speech

enum ExitCode {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    /// Extraction finished but the media was truncated: results exist but are partial.
    static let partial: Int32 = 3
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

func jsonString<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

enum CapforgeVersion {
    static let string = "0.1.0"

    static func report() -> String {
        [
            "capforge \(string)",
            (try? WhisperLibrary.version).map { "whisper.cpp \($0) (libwhisper from the pywhispercpp 1.5.1 wheel)" }
                ?? "whisper.cpp: not available (\(WhisperLibrary.fileName) cannot be opened)",
            "FFmpeg libavformat \(MediaLibraries.avformatVersion), libavcodec \(MediaLibraries.avcodecVersion)",
            "PocketSphinx 5prealpha (Debian), Vosk 0.3.45",
        ].joined(separator: "\n")
    }
}
