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

    @Test func silenceGivesNoChunks() throws {
        #expect(try planner.plan(MonoAudio(samples: [Float](repeating: 0, count: 16_000 * 20))).isEmpty)
    }
}
