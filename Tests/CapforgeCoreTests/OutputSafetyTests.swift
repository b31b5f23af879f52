import Foundation
import Testing
@testable import CapforgeCore

/// The promise "a file Capforge did not write is never replaced without being asked", and
/// "an input is never written", for every kind of thing that can sit at an output path.
@Suite struct OutputSafetyTests {
    let dir: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("safety-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    var ledger: OutputLedger { OutputLedger(stateFolder: StateFolder(tree: dir.appendingPathComponent(".capforge"))) }
    var userFacing: OutputPolicy { OutputPolicy(ledgers: [ledger]) }

    private func text(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    @Test func handMadeFileIsNeverReplacedWithoutOverwrite() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let srt = dir.appendingPathComponent("talk.en.srt")
        try "my own subtitles".write(to: srt, atomically: false, encoding: .utf8)
        #expect(throws: OutputError.notWrittenByCapforge(path: srt.path)) { try AtomicFile.write("new", to: srt, policy: userFacing) }
        #expect(try text(srt) == "my own subtitles")
        var asked = userFacing
        asked.overwrite = true
        try AtomicFile.write("replaced", to: srt, policy: asked)
        #expect(try text(srt) == "replaced")
    }

    @Test func capforgesOwnFileIsReplacedUntilSomeoneEditsIt() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let srt = dir.appendingPathComponent("talk.en.srt")
        try AtomicFile.write("first", to: srt, policy: userFacing)
        try AtomicFile.write("second", to: srt, policy: userFacing)
        #expect(try text(srt) == "second")
        // The user corrects a line by hand: from now on it is their file.
        let handle = try FileHandle(forWritingTo: srt)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(" fixed".utf8))
        try handle.close()
        #expect(throws: OutputError.notWrittenByCapforge(path: srt.path)) { try AtomicFile.write("third", to: srt, policy: userFacing) }
        #expect(try text(srt) == "second fixed")
    }

    @Test func inputIsNeverWrittenThroughALinkedFolderOrAHardLink() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("dir/v.mp4")
        try FileManager.default.createDirectory(at: source.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "video".write(to: source, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link").path, withDestinationPath: "dir")
        try FileManager.default.linkItem(at: source, to: dir.appendingPathComponent("hard.mp4"))
        var policy = userFacing.protecting([source.path])
        policy.overwrite = true  // not even when asked
        for spelling in ["link/v.mp4", "dir/../dir/v.mp4", "hard.mp4"] {
            let url = dir.appendingPathComponent(spelling)
            #expect(throws: OutputError.wouldReplaceInput(path: url.path)) {
                try AtomicFile.write("burned", to: url, policy: policy)
            }
        }
        #expect(try text(source) == "video")
    }

    @Test func devicesFIFOsAndFoldersAreNeverReplaced() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("out.fifo")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        #expect(throws: OutputError.notARegularFile(path: fifo.path, kind: "FIFO")) { try AtomicFile.write("x", to: fifo, policy: userFacing) }
        let folder = dir.appendingPathComponent("out.srt")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(throws: OutputError.notARegularFile(path: folder.path, kind: "folder")) { try AtomicFile.write("x", to: folder, policy: userFacing) }
        var info = stat()
        #expect(lstat(fifo.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    /// A device or FIFO the user named as the output is written into, never renamed over.
    @Test func namedDeviceOrFIFOIsWrittenIntoInPlace() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        var named = userFacing
        named.streamsToSpecialFiles = true
        try AtomicFile.write("discarded", to: URL(fileURLWithPath: "/dev/null"), policy: named)
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
        let fifo = dir.appendingPathComponent("pipe")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        // No reader: an error at once, not a hang.
        #expect(throws: OutputError.noReader(path: fifo.path)) { try AtomicFile.write("x", to: fifo, policy: named) }
        let reader = open(fifo.path, O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        try AtomicFile.write("through the pipe", to: fifo, policy: named)
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(reader, &buffer, buffer.count)
        #expect(String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self) == "through the pipe")
        if getuid() == 0 {
            #expect(throws: FileWriteError.diskFull(path: "/dev/full")) {
                try AtomicFile.write("x", to: URL(fileURLWithPath: "/dev/full"), policy: named)
            }
        }
    }

    @Test func symlinkedOutputWritesItsTargetAndKeepsTheLink() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("real.html")
        let link = dir.appendingPathComponent("report.html")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.html")
        try AtomicFile.write("report", to: link, policy: userFacing)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real.html")
        #expect(try text(target) == "report")
        let dangling = dir.appendingPathComponent("dangling.html")
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: "missing/x.html")
        #expect(throws: OutputError.brokenLink(path: dangling.path)) { try AtomicFile.write("x", to: dangling, policy: userFacing) }
    }

    /// A writer killed with SIGKILL leaves its temporary; the next write of that file takes it
    /// over, and a sweep removes any that no live writer holds, but never a live one.
    @Test func staleTemporariesAreReclaimedAndLiveOnesKept() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("v.captioned.mp4")
        let stale = dir.appendingPathComponent(AtomicFile.temporaryName(for: out.lastPathComponent))
        try "half a video".write(to: stale, atomically: false, encoding: .utf8)
        let oldStyle = dir.appendingPathComponent(".x.srt.1A2B3C4D.partial")
        try "old".write(to: oldStyle, atomically: false, encoding: .utf8)
        let live = try AtomicFileWriter(dir.appendingPathComponent("live.srt"), policy: userFacing)
        AtomicFile.removeStaleTemporaries(in: dir)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        #expect(!names.contains(stale.lastPathComponent) && !names.contains(oldStyle.lastPathComponent))
        #expect(names.contains(live.temporaryURL!.lastPathComponent))
        // A second writer of the same file while the first is alive is refused, not interleaved.
        #expect(throws: OutputError.busy(path: live.url.path)) { _ = try AtomicFileWriter(live.url, policy: userFacing) }
        try live.commit()
        try "half again".write(to: stale, atomically: false, encoding: .utf8)
        try AtomicFile.write("whole", to: out, policy: userFacing)
        #expect(try text(out) == "whole")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir.path)) == [".capforge", "live.srt", "v.captioned.mp4"])
    }

    @Test func longNamesKeepTheirTemporaryWithinTheNameLimit() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = String(repeating: "é", count: 120) + ".en.srt"  // 247 bytes
        try AtomicFile.write("ok", to: dir.appendingPathComponent(name), policy: userFacing)
        #expect(AtomicFile.temporaryName(for: name).utf8.count <= 255)
        #expect(try text(dir.appendingPathComponent(name)) == "ok")
    }

    @Test func userLedgerFollowsXDG() {
        #expect(OutputLedger.user(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]).folder.url.path == "/s/capforge/outputs")
        #expect(OutputLedger.user(environment: ["HOME": "/h"]).folder.url.path == "/h/.local/state/capforge/outputs")
    }
}
