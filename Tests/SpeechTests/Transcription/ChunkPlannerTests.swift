import CapforgeCore
import Foundation
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

    /// Speech longer than a window with pauses in it is cut at the last pause each window
    /// reaches: windows that meet in a pause cut no word, so they need no overlap.
    @Test func longSpeechIsCutAtItsPausesWithoutOverlap() {
        let chunks = planner.plan(regions: [SpeechRegion(start: 10, end: 80, pauses: [22, 37, 45, 61, 70])])
        #expect(chunks.map { [$0.start, $0.end] } == [[10, 37], [37, 61], [61, 80]])
        #expect(chunks.allSatisfy { $0.keepFrom == nil && $0.keepUntil == nil })
        #expect(chunks.map { $0.speech.map(\.start) } == [[10, 22], [37, 45], [61, 70]], "each stretch between pauses is checked for words")
    }

    /// A stretch between two pauses longer than a window is still cut evenly, with overlap.
    @Test func unbrokenSpeechBetweenPausesIsCutWithOverlap() {
        let chunks = planner.plan(regions: [SpeechRegion(start: 0, end: 70, pauses: [10])])
        #expect(chunks.first.map { [$0.start, $0.end] } == [0, 10])
        #expect(chunks.dropFirst().first?.start == 10 && chunks.last?.end == 70)
        for (a, b) in zip(chunks.dropFirst(), chunks.dropFirst(2)) {
            #expect(a.end - b.start >= 3 - 1e-9 && a.keepUntil == b.keepFrom)
        }
        #expect(chunks.allSatisfy { $0.duration <= 30 + 1e-9 })
    }

    /// Pauses inside speech that fits a window leave the window whole; its stretches of speech
    /// (checked for words afterwards) are those between pauses.
    @Test func pausesInsideAWindowLeaveItWhole() {
        let chunks = planner.plan(regions: [SpeechRegion(start: 1, end: 25, pauses: [10]), SpeechRegion(start: 27, end: 29)])
        #expect(chunks.map { [$0.start, $0.end] } == [[1, 29]])
        #expect(chunks.first?.speech == [SpeechRegion(start: 1, end: 10), SpeechRegion(start: 10, end: 25), SpeechRegion(start: 27, end: 29)])
    }

    /// Journals written before regions had pauses still resume.
    @Test func aRegionWithoutPausesDecodes() throws {
        let region = try JSONDecoder().decode(SpeechRegion.self, from: Data(#"{"start": 1, "end": 2}"#.utf8))
        #expect(region == SpeechRegion(start: 1, end: 2))
    }

    @Test func silenceGivesNoChunks() throws {
        #expect(try planner.plan(MonoAudio(samples: [Float](repeating: 0, count: 16_000 * 20))).isEmpty)
    }
}
