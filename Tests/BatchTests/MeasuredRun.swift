import Foundation
import Testing

/// One run of the built tool with its own peak memory, for the hostile-input suite: every run
/// must end by itself, without a signal, under a memory cap.
///
/// The peak is the process's VmHWM, read while it runs: wait4's ru_maxrss cannot be used, since
/// exec carries the spawning test process's own high-water mark into the child.
struct MeasuredRun {
    var status: Int32
    /// The signal that ended the process, if one did (a crash, or the timeout's kill).
    var signal: Int32?
    var stdout: String
    var stderr: String
    var peakMegabytes: Double
    var seconds: Double

    var output: String { stdout + stderr }

    static func run(_ arguments: [String], environment: [String: String], timeout: Double = 120,
                    signal sendSignal: Int32? = nil, when ready: () -> Bool = { true }) throws -> MeasuredRun {
        let folder = try scratchFolder("run")
        defer { try? FileManager.default.removeItem(at: folder) }
        let outPath = folder.appendingPathComponent("stdout").path, errPath = folder.appendingPathComponent("stderr").path
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([CLI.binary.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, CLI.binary.path, &actions, nil, argv, envp)
        try #require(spawned == 0, "posix_spawn failed: \(String(cString: strerror(spawned)))")
        let started = Date()
        var status: Int32 = 0
        var usage = rusage()
        var signalled = false
        var peakKilobytes = 0
        while wait4(pid, &status, WNOHANG, &usage) == 0 {
            peakKilobytes = max(peakKilobytes, Self.highWaterKilobytes(of: pid))
            let elapsed = Date().timeIntervalSince(started)
            if let sendSignal, !signalled, ready() {
                kill(pid, sendSignal)
                signalled = true
            }
            if elapsed > timeout {
                kill(pid, SIGKILL)
                Issue.record("capforge \(arguments) hung: killed after \(timeout) s")
                _ = wait4(pid, &status, 0, &usage)
                break
            }
            usleep(5_000)
        }
        let exitedNormally = status & 0x7F == 0
        return MeasuredRun(
            status: exitedNormally ? (status >> 8) & 0xFF : -1, signal: exitedNormally ? nil : status & 0x7F,
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
            peakMegabytes: Double(peakKilobytes) / 1024, seconds: Date().timeIntervalSince(started))
    }

    private static func highWaterKilobytes(of pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
