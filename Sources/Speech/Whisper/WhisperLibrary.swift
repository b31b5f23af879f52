import CWhisper
import Foundation
import Synchronization

/// libwhisper, opened on first use rather than linked, so a machine without it still starts,
/// runs the basic tier and says what is missing: its functions, its version, whether our header
/// matches it, and where its log lines go.
public enum WhisperLibrary {
    /// Found through the binary's run path: `.deps/lib/whisper` in a checkout, `PREFIX/lib/capforge` installed.
    public static let fileName = "libwhisper.so.1"

    private static let loaded = EngineLibrary.load(fileName, name: "libwhisper", lost: "the modern tier (Whisper) is off", bind: cwhisper_bind)

    /// The library's functions; `SpeechError.libraryMissing` with what to do when it cannot be opened.
    static func functions() throws -> cwhisper_functions { try loaded.get() }

    /// Why the library cannot be used; nil when it can.
    public static var problem: SpeechError? {
        loaded.failure
    }

    /// The whisper.cpp release of the library, e.g. "1.8.5".
    public static var version: String {
        get throws { try functions().whisper_version().map { String(cString: $0) } ?? "unknown" }
    }

    /// Checks that the library's `whisper_full_default_params` reads, through our header, as
    /// the defaults of the release the header was written for. A mismatch means every field
    /// we set would land at the wrong offset, so nothing may run.
    public static func verifyABI() throws {
        try verifyABI(against: WhisperABIExpectation.release1_8_5)
    }

    static func verifyABI(against expectation: WhisperABIExpectation) throws {
        let params = try functions().whisper_full_default_params(WHISPER_SAMPLING_GREEDY)
        let mismatches = expectation.mismatches(in: params)
        guard mismatches.isEmpty else {
            throw WhisperABIError(libraryVersion: try version, headerVersion: expectation.release, mismatches: mismatches)
        }
    }

    /// Receives the library's log lines (debug level); nil, the default, drops them.
    public static func setLogHandler(_ handler: (@Sendable (String) -> Void)?) {
        logRouting.set(handler)
        routeLogOnce
    }

    /// Installed before any context exists, so the library never writes to stderr itself.
    static let routeLogOnce: Void = {
        (try? functions())?.whisper_log_set({ _, text, _ in
            guard let text, let handler = logRouting.handler else { return }
            let line = String(cString: text).trimmingCharacters(in: .newlines)
            if !line.isEmpty { handler(line) }
        }, nil)
    }()

    private static let logRouting = LogRouting()
}

private final class LogRouting: Sendable {
    private let stored = Mutex<(@Sendable (String) -> Void)?>(nil)

    var handler: (@Sendable (String) -> Void)? { stored.withLock { $0 } }

    func set(_ handler: (@Sendable (String) -> Void)?) {
        stored.withLock { $0 = handler }
    }
}

public struct WhisperABIError: Error, CustomStringConvertible, Equatable {
    public var libraryVersion: String
    public var headerVersion: String
    public var mismatches: [String]

    public var description: String {
        "libwhisper \(libraryVersion) does not match Capforge's whisper.cpp \(headerVersion) header "
            + "(\(mismatches.joined(separator: "; "))); reinstall the pinned library with Scripts/setup"
    }
}
