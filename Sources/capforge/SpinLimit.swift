import Foundation

/// libgomp reads its environment in a load-time constructor, before `main`: setting
/// `GOMP_SPINCOUNT` later has no effect, and without it ggml's spinning OpenMP barriers collapse
/// when another process shares the two cores. Commands that run Whisper re-execute the tool
/// once with the limit set; if that fails, Whisper falls back to one thread.
enum SpinLimit {
    static let variable = "GOMP_SPINCOUNT"

    static func ensure() {
        guard getenv(variable) == nil else { return }
        setenv(variable, "2000", 1)
        var argv = CommandLine.arguments.map { strdup($0) }
        argv.append(nil)
        execv("/proc/self/exe", argv)
        // execv returned: it failed. Undo, so recommendedThreads() picks one thread.
        unsetenv(variable)
        for pointer in argv { free(pointer) }
    }
}
