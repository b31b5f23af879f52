import CapforgeCore
import Foundation
@testable import Speech
import Testing

@Suite struct JournalTests {
    let audio = burstAudio(seconds: 100, bursts: [(2, 12), (40, 50), (80, 90)])
    let plan = TierPlan(language: .english, mode: .modern, basicFallback: false)

    /// Deadlines no loaded machine reaches: a chunk that timed out is journaled as failed and
    /// heard again, which is not what these tests are about (a run beside a benchmark once took
    /// 185 s and re-heard the first chunk).
    static let patient: TranscriptionOptions = {
        var options = TranscriptionOptions()
        (options.deadlineFactor, options.minimumDeadline, options.firstCallDeadline) = (1e5, 1e5, 1e5)
        return options
    }()

    func tempJournal() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID())/talk.journal")
    }

    /// Heard one chunk at a time or two side by side (chunks heard ahead of one still being heard
    /// are not journaled until it is).
    @Test(arguments: [1, 2]) func interruptedRunResumesToTheSameTranscript(windowsAtOnce: Int) throws {
        let url = tempJournal()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let reference = try ChunkedTranscriber(engines: TierEngines(modern: [ToneEngine(engine: "whisper", tier: .modern, languages: [.english])], basic: []),
                                               calibration: CalibrationTable(engines: [:]), options: Self.patient).transcribe(audio, plan: plan)

        // First run: the user interrupts during the third chunk, once the second is journaled (said
        // by its progress; a timer instead fired before it on a loaded machine).
        let interrupted = ToneEngine(engine: "whisper", tier: .modern, languages: [.english])
        interrupted.windowsAtOnce = windowsAtOnce
        interrupted.behaviour = { $0 == 2 ? .hangUntilCancelled : .recognise }
        let cancellation = Cancellation()
        #expect(throws: Cancelled()) {
            try ChunkedTranscriber(engines: TierEngines(modern: [interrupted], basic: []), calibration: CalibrationTable(engines: [:]), options: Self.patient)
                .transcribe(audio, plan: plan, journal: try journal(at: url, key: "k1"), cancellation: cancellation) { progress in
                    if progress.chunk == 1 { cancellation.cancel() }
                }
        }

        // Second run: only the third chunk is recognised again.
        let resumedEngine = ToneEngine(engine: "whisper", tier: .modern, languages: [.english])
        resumedEngine.windowsAtOnce = windowsAtOnce
        var resumedFlags: [Bool] = []
        let resumed = try ChunkedTranscriber(engines: TierEngines(modern: [resumedEngine], basic: []), calibration: CalibrationTable(engines: [:]), options: Self.patient)
            .transcribe(audio, plan: plan, journal: try journal(at: url, key: "k1")) { resumedFlags.append($0.resumed) }
        #expect(resumedFlags == [true, true, false])
        #expect(resumedEngine.calls.count == 1)
        #expect(resumed == reference)
    }

    /// What an engine cut of its loops or dropped as heard over no speech is part of the
    /// transcript, and comes back from the journal.
    @Test func loopCutsAndDropsAreKeptAndResumed() throws {
        let url = tempJournal()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let engine = ToneEngine(engine: "whisper", tier: .modern, languages: [.english])
        engine.loopCuts = { [LoopCut(start: $0.startTime, end: $0.startTime + 1, heard: "thank you thank you thank you", kept: "thank you")] }
        // Said twice in the one window: both are reported.
        engine.droppedWords = { audio in
            [Word(text: "Bye", start: audio.endTime - 1, end: audio.endTime - 0.7, confidence: 0.9, tier: .modern, engine: "whisper"),
             Word(text: "bye.", start: audio.endTime - 0.6, end: audio.endTime - 0.3, confidence: 0.9, tier: .modern, engine: "whisper")]
        }
        let transcriber = ChunkedTranscriber(engines: TierEngines(modern: [engine], basic: []), calibration: CalibrationTable(engines: [:]))
        let first = try transcriber.transcribe(audio, plan: plan, journal: try journal(at: url, key: "k1"))
        #expect(first.loopCuts.count == 3 && first.loopCuts.allSatisfy { $0.kept == "thank you" })
        #expect(first.droppedWords.map(\.word.text) == ["Bye", "bye.", "Bye", "bye.", "Bye", "bye."])
        let resumed = try transcriber.transcribe(audio, plan: plan, journal: try journal(at: url, key: "k1"))
        #expect(engine.calls.count == 3, "every chunk came from the journal")
        #expect(resumed.loopCuts == first.loopCuts && resumed.droppedWords == first.droppedWords)
        // A journal written before loops and drops were recorded reads as none.
        let line = try #require(String(decoding: Data(contentsOf: url), as: UTF8.self).split(separator: "\n").dropFirst().first)
        var entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        entry["loopCuts"] = nil
        entry["droppedWords"] = nil
        let old = try JSONDecoder().decode(JournalEntry.self, from: JSONSerialization.data(withJSONObject: entry))
        #expect(old.loopCuts.isEmpty && old.droppedWords.isEmpty && !old.words.isEmpty)
    }

    /// Overlapping windows that both drop the same word report it once.
    @Test func aWordDroppedByTwoWindowsIsReportedOnce() {
        func word(_ text: String, _ start: Double) -> Word {
            Word(text: text, start: start, end: start + 0.3, confidence: 0.9, tier: .modern, engine: "whisper")
        }
        let reported = ChunkedTranscriber.reportedOnce([[word("you", 40)], [word("Thank", 9.5), word("you.", 9.9)], [word("thank", 9.7), word("you", 10.0)]]
            .map { $0.dropped(.steadySound) })
        #expect(reported.map(\.word.text) == ["Thank", "you.", "you"])
    }

    /// A loop both overlapping windows cut is reported once, as the larger cut; two loops one
    /// window cut stay two.
    @Test func aLoopCutByTwoWindowsIsReportedOnce() {
        let inFirst = [LoopCut(start: 10, end: 14, heard: "no no no no no no", kept: "no no"),
                       LoopCut(start: 15, end: 16, heard: "yes yes yes", kept: "yes")]
        let inSecond = [LoopCut(start: 11, end: 14.5, heard: "no no no no no no no no", kept: "no no"),
                        LoopCut(start: 30, end: 31, heard: "go go go", kept: "go")]
        let reported = ChunkedTranscriber.reportedOnce([inFirst, inSecond])
        #expect(reported == [inSecond[0], inFirst[1], inSecond[1]])
    }

    @Test func tornLastLineAndForeignKeysAreIgnored() throws {
        let url = tempJournal()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let engine = ToneEngine(engine: "whisper", tier: .modern, languages: [.english])
        _ = try ChunkedTranscriber(engines: TierEngines(modern: [engine], basic: []), calibration: CalibrationTable(engines: [:]))
            .transcribe(audio, plan: plan, journal: try journal(at: url, key: "k1"))
        // Simulate a process killed while writing a line.
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"chunk\":{\"index\":3,\"sta".utf8))
        try handle.close()
        #expect(try journal(at: url, key: "k1").entries.count == 3)
        #expect(try journal(at: url, key: "k1").entries.count == 3, "reopening rewrote a clean file")
        #expect(try journal(at: url, key: "other settings").entries.isEmpty)
    }

    /// A journal is input like any other: an entry with times or confidences no run records (a
    /// planted or damaged line) is not resumed, nor is anything after it.
    @Test func entriesNoRunRecordsAreNotResumed() throws {
        let url = tempJournal()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let engine = ToneEngine(engine: "whisper", tier: .modern, languages: [.english])
        _ = try ChunkedTranscriber(engines: TierEngines(modern: [engine], basic: []), calibration: CalibrationTable(engines: [:]))
            .transcribe(audio, plan: plan, journal: try journal(at: url, key: "k1"))
        let kept = try journal(at: url, key: "k1").entries
        #expect(kept.count == 3)
        for damage in [{ (entry: inout JournalEntry) in entry.words[0].start = 1e308 }, { $0.words[0].confidence = 7 }, { $0.heardUntil = -1e300 },
                       { $0.words[0].end = $0.words[0].start - 1 }] {
            var entries = kept
            damage(&entries[1])
            let lines = try [#"{"journal":1,"key":"k1"}"#] + entries.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
            try Data(lines.joined(separator: "\n").utf8).write(to: url)
            #expect(try journal(at: url, key: "k1").entries == [kept[0]])
        }
    }

    func journal(at url: URL, key: String) throws -> TranscriptionJournal {
        try TranscriptionJournal(folder: StateFolder(tree: url.deletingLastPathComponent()), name: url.lastPathComponent, key: key)
    }
}
