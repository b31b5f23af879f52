import CapforgeCore
import Testing
@testable import Speech

/// What a pass did that was not asked for comes back as typed notes, each with its sentence.
@Suite struct TranscriptionNoteTests {
    private let plan = TierPlan(language: .english, mode: .modern, basicFallback: true)

    private func notes(_ transcript: Transcript) -> [TranscriptionNote] {
        TranscriptionNote.notes(of: transcript, plan: plan, engines: TierEngines(modern: [], basic: []), calibration: CalibrationTable(engines: [:]))
    }

    /// A seam the refereeing window could not join is noted, with where and why.
    @Test func aSeamLeftToTheMiddle() {
        let transcript = Transcript(language: .english, words: [], duration: 60, seamErrors: ["at 25.0 s: recognition did not finish within its 20 s deadline"])
        #expect(notes(transcript) == [.seamsNotReheard(count: 1, first: "at 25.0 s: recognition did not finish within its 20 s deadline")])
        #expect(notes(transcript)[0].description.hasPrefix("1 seam(s) between windows that disagreed could not be heard again"))
        #expect(notes(Transcript(language: .english, words: [], duration: 60)).isEmpty)
    }

    /// Windows `--beam` did not decode by beam search are noted, and a run where it decoded every one is quiet.
    @Test func windowsLeftToGreedyDecoding() {
        let tally = BeamTally(beamWindows: 7, unsureWindows: 2, failedWindows: 1)
        #expect(notes(Transcript(language: .english, words: [], duration: 60, beam: tally)) == [.beamFellBack(tally: tally)])
        #expect(TranscriptionNote.beamFellBack(tally: tally).description == "beam search decoded 7 of 10 30 s window(s): 2 too unsure for it "
            + "(greedy decoding with temperature fallback instead), 1 where it could not run (greedy decoding instead)")
        #expect(notes(Transcript(language: .english, words: [], duration: 60, beam: BeamTally(beamWindows: 3))).isEmpty)
    }

    /// Copies of a loop that were cut are noted, with where, what was written and what was kept.
    @Test func aCutLoop() {
        let loop = Array(repeating: "I'm not sure what you're doing.", count: 4).joined(separator: " ")
        let cut = LoopCut(start: 75, end: 83, heard: loop, kept: "I'm not sure what you're doing.")
        #expect(notes(Transcript(language: .english, words: [], duration: 60, loopCuts: [cut])) == [.loopsCut(count: 1, first: cut)])
        #expect(TranscriptionNote.loopsCut(count: 1, first: cut).description.contains(
            "first at 1:15: wrote “I'm not sure what you're doing. I'm not sure what you're doing. …” (24 words), kept “I'm not sure what you're doing.” (6 words)"))
    }

    /// Dropped words are noted by reason with their span and first twelve words; failed chunks with their spans.
    @Test func droppedWordsAndFailedChunks() {
        let words = (0..<14).map { Word(text: "w\($0)", start: Double($0), end: Double($0) + 0.5, confidence: 0.3, tier: .modern, engine: "whisper") }
        let failed = ChunkRecord(start: 30, end: 58.5, outcome: .failed, error: "timed out")
        let transcript = Transcript(language: .english, words: [], chunks: [failed], duration: 60, droppedWords: words.dropped(.outsideSpeech))
        let noted = notes(transcript)
        #expect(noted.first == .dropped(reason: .outsideSpeech, count: 14, span: TimeSpan(start: 0, end: 13.5), excerpt: words.prefix(12).map(\.text)))
        #expect(noted.first?.description.hasSuffix("0:00–0:14: “w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 …”") == true, "\(noted)")
        #expect(noted.last == .chunksFailed(spans: [TimeSpan(start: 30, end: 58.5)]))
        #expect(TranscriptionNote.ofTranslation(note: .chunksFailed(spans: [TimeSpan(start: 30, end: 58.5)])).description.hasPrefix(
            "English translation: 1 chunk(s) could not be recognised by any tier: 30.0–58.5 s"))
    }
}
