import Foundation
import Testing

/// Runs the built `capforge` tool as a user would, with the project-local models and styles.
struct CLI {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = repo.appendingPathComponent("Fixtures")
    static let models = repo.appendingPathComponent(".deps/models")
    /// The test bundle sits beside the products it was built with.
    static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("capforge")
    /// How long a run may take before it counts as hung: a hang guard, not a speed check (speed
    /// belongs to Benchmarks/). Generous because a loaded 2-core machine (another build and test
    /// run beside this one) stretches a whole-file run that takes seconds alone into minutes.
    /// The suites' `.timeLimit(.minutes(30))` are hang guards of the same kind, for a test of several runs.
    static let hangGuardSeconds: Double = 900

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var seconds: Double

        /// The `--json` events, parsed.
        var events: [[String: Any]] {
            stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        func events(_ name: String) -> [[String: Any]] { events.filter { $0["event"] as? String == name } }
    }

    var environment: [String: String] = {
        var env = ProcessInfo.processInfo.environment
        env["CAPFORGE_MODELS"] = CLI.models.path
        env["CAPFORGE_STYLES"] = CLI.repo.appendingPathComponent("Styles").path
        env["NO_COLOR"] = "1"
        // Outputs written outside a batch tree are recorded here, not in the user's own state.
        env["XDG_STATE_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-test-state").path
        return env
    }()

    /// Runs to completion; `signal` (SIGINT, SIGKILL) is sent once stdout shows a line containing `after`.
    func run(_ arguments: [String], signal: Int32? = nil, after marker: String = "\"event\":\"chunk\"", timeout: Double = CLI.hangGuardSeconds) throws -> Result {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let started = Date()
        try process.run()
        var stdout = Data()
        var signalled = false
        let errData = ErrorCollector(err.fileHandleForReading)
        while true {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            stdout.append(chunk)
            if let signal, !signalled, String(decoding: stdout, as: UTF8.self).contains(marker) {
                kill(process.processIdentifier, signal)
                signalled = true
            }
            if Date().timeIntervalSince(started) > timeout {
                process.terminate()
                Issue.record("capforge \(arguments) ran over \(timeout) s")
                break
            }
        }
        process.waitUntilExit()
        if signal != nil { #expect(signalled, "the signal was never sent: '\(marker)' did not appear") }
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: errData.text(), seconds: Date().timeIntervalSince(started))
    }
}

/// Drains stderr on its own thread so a chatty child never blocks on a full pipe.
final class ErrorCollector: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func text() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}

/// A fresh folder under the system temporary directory, removed by the caller.
func scratchFolder(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-\(name)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func copyFixture(_ name: String, to folder: URL, as newName: String? = nil) throws {
    try FileManager.default.copyItem(at: CLI.fixtures.appendingPathComponent(name), to: folder.appendingPathComponent(newName ?? name))
}

/// Files under `folder` (recursively, hidden ones included) relative to it.
func listing(_ folder: URL) -> [String] {
    (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).sorted()
}

/// Runs a helper tool (ffmpeg, mount, rm) to completion with its own standard input and output:
/// it can neither read the test runner's input (ffmpeg reads keys from stdin) nor write into the
/// stream the runner reports on. Returns the exit status.
@discardableResult
func runTool(_ path: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}
