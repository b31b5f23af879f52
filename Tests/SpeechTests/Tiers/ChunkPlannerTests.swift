import CapforgeCore
import Speech
import Testing

@Suite struct ChunkPlannerTests {
    let planner = ChunkPlanner(targetLength: 30, overlap: 3)

    func regions(_ spans: [(Double, Double)]) -> [SpeechRegion] { spans.map { SpeechRegion(start: $0.0, end: $0.1) } }

    @Test func groupsPausedSpeechUpToTheTarget() {
        let chunks = planner.plan(regions: regions([(1, 5), (6, 12), (14, 29), (33, 40), (70, 75)]))
        #expect(chunks.map { [$0.start, $0.end] } == [[1, 29], [33, 40], [70, 75]])
        #expect(chunks.allSatisfy { $0.keepFrom == nil && $0.keepUntil == nil })
        #expect(chunks.map(\.index) == [0, 1, 2])
    }

    @Test func unbrokenSpeechIsCutWithOverlapAndSplitKeepRanges() {
        let chunks = planner.plan(regions: regions([(10, 100)]))
        #expect(chunks.count == 4)
        #expect(chunks.first?.start == 10 && chunks.last?.end == 100)
        for (a, b) in zip(chunks, chunks.dropFirst()) {
            #expect(a.end - b.start >= 3 - 1e-9, "neighbours overlap by at least 3 s")
            #expect(a.keepUntil == b.keepFrom)
            #expect(abs((a.keepUntil ?? 0) - (a.end + b.start) / 2) < 1e-9, "the boundary is the overlap's middle")
        }
        #expect(chunks.allSatisfy { $0.duration <= 30 + 1e-9 })
    }

    /// A window edge inside speech moves inward to the pause between two words near it (here
    /// 80 ms gaps 0.5 s inside each planned edge); edges at the ends of speech stay.
    @Test func windowEdgesInsideSpeechMoveToAPause() throws {
        let planned = planner.plan(regions: regions([(10, 100)]))
        let inner = planned.dropFirst().map { $0.start + 0.5 } + planned.dropLast().map { $0.end - 0.5 }
        let gaps = inner.sorted().map { ($0 - 0.04, $0 + 0.04) }
        let bursts = zip([10.0] + gaps.map(\.1), gaps.map(\.0) + [100.0]).map { ($0, $1) }
        let placed = try planner.placedAtPauses(planned, in: burstAudio(seconds: 100, bursts: bursts))
        #expect(placed.first?.start == 10 && placed.last?.end == 100)
        for (a, b) in zip(placed, placed.dropFirst()) {
            #expect(gaps.contains { ($0.0...$0.1).contains(a.end) }, "end \(a.end) is in a pause")
            #expect(gaps.contains { ($0.0...$0.1).contains(b.start) }, "start \(b.start) is in a pause")
            #expect(a.keepUntil == b.keepFrom && abs((a.keepUntil ?? 0) - (a.end + b.start) / 2) < 1e-9)
        }
        #expect(placed.allSatisfy { $0.duration <= 30 + 1e-9 })
    }

    @Test func silenceGivesNoChunks() throws {
        #expect(try planner.plan(MonoAudio(samples: [Float](repeating: 0, count: 16_000 * 20))).isEmpty)
    }
}
