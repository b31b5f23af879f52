import CapforgeCore
import Foundation
import Media
import TestSupport
import Testing

/// The corpus from Scripts/make-bad-fixtures: every entry gives a specific error or a flagged
/// partial result, never a crash or a hang.
// The limit catches a hang and nothing else; it is generous because a full parallel run on a
// shared machine can leave these tests waiting minutes for a core (one run spent 178 s on what
// takes 0.3 s alone, and 5 minutes failed under another build and test run).
@Suite(.timeLimit(.minutes(15)))
struct BadInputTests {
    func bad(_ name: String) -> String { Fixtures.bad.appendingPathComponent(name).path }

    func extract(_ name: String, _ selection: AudioStreamSelection = .automatic) throws -> (MonoAudio, ExtractionReport) {
        try AudioExtractor(path: bad(name), selection: selection).extractAll()
    }

    @Test func rejectedBeforeOpening() {
        #expect(throws: MediaError.empty(path: bad("empty.mp4"))) { try extract("empty.mp4") }
        #expect(throws: MediaError.notAFile(path: bad("folder.mp4"), kind: "directory")) { try extract("folder.mp4") }
        #expect(throws: MediaError.notAFile(path: bad("fifo.mkv"), kind: "named pipe")) { try extract("fifo.mkv") }
        #expect(throws: MediaError.notFound(path: bad("missing.mp4"))) { try extract("missing.mp4") }
        #expect(throws: MediaError.notFound(path: bad("missing/dir/x.mp4"))) { try extract("missing/dir/x.mp4") }
    }

    @Test func unrecognisableContent() throws {
        for name in ["random.mp4", "truncated-moov-at-end.mp4"] {
            let error = #expect(throws: MediaError.self) { try extract(name) }
            guard case .unrecognised = error else { Issue.record("\(name): \(String(describing: error))"); continue }
            #expect(error?.description.contains("corrupt or truncated") == true)
        }
    }

    @Test func unreadableFile() throws {
        // Root reads mode-000 files anyway; then it is the valid file it was copied from.
        if getuid() == 0 {
            #expect(try extract("unreadable.mp4").1.sampleCount > 0)
        } else {
            #expect(throws: MediaError.self) { try extract("unreadable.mp4") }
        }
    }

    @Test(arguments: [("truncated-faststart.mp4", 1), ("truncated.mkv", 1), ("truncated.mkv", 2)])
    func truncationIsFlagged(_ name: String, _ stream: Int) throws {
        let (audio, report) = try extract(name, .index(stream))
        #expect(report.isTruncated)
        #expect(audio.samples.count > 16_000, "what exists is still delivered")
        guard case .truncated(let decoded, let expected)? = report.warnings.first(where: { if case .truncated = $0 { true } else { false } }) else { return }
        #expect(decoded < expected * 0.7)
        #expect(abs(decoded - audio.duration) < 0.1)
    }

    @Test(arguments: [("zeroed-64k.mp4", "librivox.mp4"), ("zeroed-64k-vp9.webm", "two_cities.webm")])
    func corruptionKeepsTheTimeline(_ name: String, _ clean: String) throws {
        let (damaged, report) = try extract(name)
        let (original, _) = try AudioExtractor(path: Fixtures.path(clean)).extractAll()
        #expect(!report.warnings.isEmpty, "damage must be reported")
        #expect(!report.isTruncated)
        // Placed by timestamp: same length, and the audio after the damaged span lines up. AAC's
        // noise substitution keeps a random state across frames, so "lines up" is measured as a
        // small residual rather than bit equality; a shift of even one sample of speech is not small.
        #expect(abs(damaged.samples.count - original.samples.count) <= 16)
        let tail = 32_000
        let a = Array(damaged.samples.suffix(tail)), b = Array(original.samples.suffix(tail))
        func residual(shift: Int) -> Float {
            var err: Float = 0, energy: Float = 0
            for i in 200..<(tail - 200) { err += (a[i + shift] - b[i]) * (a[i + shift] - b[i]); energy += b[i] * b[i] }
            return err / max(energy, 1e-9)
        }
        #expect(residual(shift: 0) < 0.01, "residual \(residual(shift: 0)): later audio was shifted")
        #expect(residual(shift: 0) < residual(shift: 1) && residual(shift: 0) < residual(shift: -1))
    }
}
