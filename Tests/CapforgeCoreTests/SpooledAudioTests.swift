import Foundation
import Testing
@testable import CapforgeCore

@Suite struct SpooledAudioTests {
    @Test func slicesMatchTheSameAudioInMemoryAndNothingIsLeftOnDisk() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let samples = (0..<(SpooledAudio.bufferSamples * 2 + 12_345)).map { Float(sin(Double($0) / 37)) }
        let memory = MonoAudio(samples: samples, startTime: 1.5)
        let spool = try SpooledAudio(in: StateFolder(tree: folder), startTime: 1.5)
        var offset = 0
        for size in [1, 1023, 70_000, SpooledAudio.bufferSamples, 3] + Array(repeating: 100_000, count: 20) where offset < samples.count {
            let end = min(samples.count, offset + size)
            try spool.append(samples[offset..<end])
            offset = end
        }
        try spool.append(samples[offset...])
        try spool.finish()
        // Unlinked at once: nothing to clean up, even after SIGKILL.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        #expect(spool.duration == memory.duration && spool.endTime == memory.endTime)
        for (from, to) in [(0.0, 200.0), (1.5, 2.0), (30.0, 95.3), (131.0, 140.0), (-5.0, 1.6), (200.0, 300.0)] {
            #expect(try spool.slice(from: from, to: to) == memory.slice(from: from, to: to), "\(from)–\(to)")
        }
    }
}
