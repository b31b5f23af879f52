import CapforgeCore
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

/// A line on standard output. Everything the tool prints goes through this and `printError`
/// (`Terminal`): what a name or a file's text holds is shown escaped, never acted on.
func printLine(_ text: TerminalText) {
    Terminal.standardOutput.line(text)
}

func printError(_ text: TerminalText) {
    Terminal.standardError.line(text)
}

/// Swift's `print` writes its text raw: here it is `printLine`, `printError` or `Terminal`.
@available(*, unavailable, message: "use printLine or printError: they escape what a terminal would act on")
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {}

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
