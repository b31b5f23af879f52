import Foundation
import Testing
@testable import CapforgeCore

@Suite struct AtomicFileTests {
    @Test func writesAndLeavesNoTemporary() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("sub/out.srt")
        try AtomicFile.write("one", to: target)
        try AtomicFile.write("two", to: target)
        #expect(try String(contentsOf: target, encoding: .utf8) == "two")
        let names = try FileManager.default.contentsOfDirectory(atPath: target.deletingLastPathComponent().path)
        #expect(names == ["out.srt"])
    }

    @Test func unwritableTargetIsATypedError() {
        #expect(throws: FileWriteError.self) {
            try AtomicFile.write(Data(count: 10), to: URL(fileURLWithPath: "/proc/capforge-cannot-exist/x"))
        }
    }
}
