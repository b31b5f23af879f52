import CVosk

/// libvosk, opened on first use rather than linked (`EngineLibrary`).
enum VoskLibrary {
    static let fileName = "libvosk.so"

    private static let loaded = EngineLibrary.load(fileName, name: "libvosk", lost: "Vosk's basic-tier languages are off", bind: cvosk_bind)

    /// The library's functions; `SpeechError.libraryMissing` with what to do when it cannot be opened.
    static func functions() throws -> cvosk_functions { try loaded.get() }

    /// Why the library cannot be used; nil when it can.
    static var problem: SpeechError? {
        loaded.failure
    }
}
