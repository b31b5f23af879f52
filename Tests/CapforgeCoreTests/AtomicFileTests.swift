import Foundation
import Testing
@testable import CapforgeCore

@Suite struct AtomicFileTests {
    @Test func writesAndLeavesNoTemporary() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("sub/out.srt")
        try AtomicFile.write("one", to: target, policy: OutputPolicy(ledgers: []))
        try AtomicFile.write("two", to: target, policy: OutputPolicy(ledgers: []))
        #expect(try String(contentsOf: target, encoding: .utf8) == "two")
        let names = try FileManager.default.contentsOfDirectory(atPath: target.deletingLastPathComponent().path)
        #expect(names == ["out.srt"])
    }

    @Test func unwritableTargetIsATypedError() {
        #expect(throws: FileWriteError.self) {
            try AtomicFile.write(Data(count: 10), to: URL(fileURLWithPath: "/proc/capforge-cannot-exist/x"), policy: OutputPolicy(ledgers: []))
        }
    }
}

/// A real full disk: a 64 KiB tmpfs (needs root, as CI and the dev machines run).
@Suite(.enabled(if: getuid() == 0, "mounting a tiny tmpfs needs root"))
struct FullDiskTests {
    @Test func fullDiskIsReportedAndLeavesNothingBehind() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("full-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir.path]
        try mount.run()
        mount.waitUntilExit()
        try #require(mount.terminationStatus == 0, "mount failed")
        defer {
            let umount = Process()
            umount.executableURL = URL(fileURLWithPath: "/bin/umount")
            umount.arguments = [dir.path]
            try? umount.run()
            umount.waitUntilExit()
        }
        let target = dir.appendingPathComponent("big.json")
        #expect(throws: FileWriteError.diskFull(path: target.path)) {
            try AtomicFile.write(Data(count: 512 * 1024), to: target, policy: OutputPolicy(ledgers: []))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}
