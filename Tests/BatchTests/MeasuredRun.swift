import Foundation
import Testing

/// One run of the built tool with its own peak memory, for the hostile-input suite: every run
/// must end by itself, without a signal, under a memory cap. Its time is printed, never asserted:
/// only a hang (`CLI.hangGuardSeconds`) fails a run.
///
/// The peak is the process's VmHWM, read while it runs: wait4's ru_maxrss cannot be used, since
/// exec carries the spawning test process's own high-water mark into the child.
struct MeasuredRun {
    var status: Int32
    /// The signal that ended the process, if one did (a crash, or the timeout's kill).
    var signal: Int32?
    var stdout: String
    var stderr: String
    /// Both streams as written, for what a terminal would get: bytes that are not UTF-8 (a raw
    /// C1 byte) are lost in the decoded text.
    var bytes: Data
    var peakMegabytes: Double
    var seconds: Double

    var output: String { stdout + stderr }

    static func run(_ arguments: [String], environment: [String: String],
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
            if elapsed > CLI.hangGuardSeconds {
                kill(pid, SIGKILL)
                Issue.record("capforge \(arguments) hung: killed after \(CLI.hangGuardSeconds) s")
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
            bytes: ((try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data()) + ((try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data()),
            peakMegabytes: Double(peakKilobytes) / 1024, seconds: Date().timeIntervalSince(started))
    }

    /// A run with the checks every hostile suite makes: it ends by itself (no signal but the one
    /// sent), prints no raw Foundation error, only UTF-8, and no control character but line
    /// breaks and tabs, nor a bidirectional control (a name's escape sequence or direction
    /// override must not reach the terminal), and stays under `cap` MB. Its exit, peak and time
    /// are printed under `label`.
    static func checked(_ arguments: [String], label: String, environment: [String: String], cap: Double? = nil,
                        signal sendSignal: Int32? = nil, when ready: () -> Bool = { true }) throws -> MeasuredRun {
        let result = try run(arguments, environment: environment, signal: sendSignal, when: ready)
        let command = shown(arguments)
        print(String(format: "%@: exit %d, peak %.0f MB%@, %.1f s: capforge %@", label, result.status, result.peakMegabytes,
                     cap.map { String(format: " (cap %.0f)", $0) } ?? "", result.seconds, command))
        #expect(result.signal == nil || result.signal == sendSignal, "capforge \(command) died of signal \(result.signal ?? 0)")
        #expect(!result.output.contains("NSCocoaErrorDomain") && !result.output.contains("Error Domain="), "a raw Foundation error: \(result.stderr)")
        let printed = String(validating: result.bytes, as: UTF8.self)
        #expect(printed != nil, "bytes that are not UTF-8 printed: \(result.output.debugDescription)")
        #expect(!(printed ?? "").unicodeScalars.contains(where: Self.actsOnATerminal), "a control character printed raw: \(result.output.debugDescription)")
        if let cap { #expect(result.peakMegabytes < cap, "capforge \(command): peak \(result.peakMegabytes) MB") }
        return result
    }

    /// What a terminal acts on instead of showing, in text a program prints: C0 and C1 controls
    /// and DEL but its own line breaks and tabs, line and paragraph separators, bidirectional
    /// controls.
    static func actsOnATerminal(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control: return scalar != "\n" && scalar != "\t"
        case .lineSeparator, .paragraphSeparator: return true
        default: return [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069].contains(scalar.value)
        }
    }

    /// The command line as the log shows it: long paths cut to their ends, at most eight
    /// arguments, and nothing a terminal would act on.
    private static func shown(_ arguments: [String]) -> String {
        arguments.prefix(8).map { ($0.count > 40 ? "…" + $0.suffix(39) : $0).unicodeScalars.map { $0.escaped(asASCII: false) }.joined() }
            .joined(separator: " ") + (arguments.count > 8 ? " … (\(arguments.count) arguments)" : "")
    }

    /// Counted only once the process runs capforge's image: a sample taken before its exec took
    /// effect would be the test runner's (once 1,857 MB for a run that peaks at 62 MB, while a
    /// second test suite loaded the machine).
    private static func highWaterKilobytes(of pid: pid_t) -> Int {
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == CLI.binary.resolvingSymlinksInPath().path,
              let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
