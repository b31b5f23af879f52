import CapforgeCore

extension TranscriptionNote {
    /// What a pass of `plan` did that was not asked for: chunks that fell back or failed, what the
    /// hallucination guard, the seams, the beam and arbitration did, and where the confidence
    /// rests on no measurement or `--cross-check` could not act. `engines`: the pass's.
    static func notes(of transcript: Transcript, plan: TierPlan, engines: TierEngines, calibration: CalibrationTable) -> [TranscriptionNote] {
        var notes: [TranscriptionNote] = []
        let fellBack = transcript.chunks.filter { plan.mode == .modern && $0.tier == .basic }
        if let first = fellBack.first {
            notes.append(.fellBack(chunks: fellBack.count, of: transcript.chunks.count, reason: first.error ?? "the modern tier failed",
                                   first: TimeSpan(start: first.start, end: first.end)))
        }
        for reason in DropReason.allCases {
            let dropped = transcript.droppedWords.filter { $0.reason == reason }.map(\.word)
            guard let first = dropped.first, let last = dropped.last else { continue }
            notes.append(.dropped(reason: reason, count: dropped.count, span: TimeSpan(start: first.start, end: last.end), excerpt: dropped.prefix(12).map(\.text)))
        }
        if let first = transcript.loopCuts.first { notes.append(.loopsCut(count: transcript.loopCuts.count, first: first)) }
        if transcript.wordsOverNoSpeech > 0 { notes.append(.wordsOverNoSpeech(count: transcript.wordsOverNoSpeech)) }
        if let first = transcript.seamErrors.first { notes.append(.seamsNotReheard(count: transcript.seamErrors.count, first: first)) }
        if let beam = transcript.beam, beam.unsureWindows + beam.failedWindows > 0 { notes.append(.beamFellBack(tally: beam)) }
        let givenToRival = transcript.arbitrations.filter { $0.winner == .basic }
        if !givenToRival.isEmpty {
            notes.append(.arbitratedToBasic(stretches: givenToRival.count, of: transcript.arbitrations.count,
                                            words: givenToRival.reduce(0) { $0 + $1.rival.count }))
        }
        let failedRival = transcript.arbitrations.filter { $0.rule == .rivalFailed }
        if let first = failedRival.first { notes.append(.basicFailedArbitration(stretches: failedRival.count, error: first.error ?? "")) }
        notes += confidenceNotes(transcript, engines: engines, calibration: calibration)
        let failed = transcript.chunks.filter { $0.outcome == .failed }
        if !failed.isEmpty { notes.append(.chunksFailed(spans: failed.map { TimeSpan(start: $0.start, end: $0.end) })) }
        if let music = transcript.sounds?.musicAlone, !music.isEmpty { notes.append(.musicNotHeard(stretches: music.map { TimeSpan(start: $0.start, end: $0.end) })) }
        return notes
    }

    /// Where a transcript's confidences rest on no measurement, and what `--cross-check` could not do.
    private static func confidenceNotes(_ transcript: Transcript, engines: TierEngines, calibration: CalibrationTable) -> [TranscriptionNote] {
        if transcript.translatedFrom != nil { return [.translationUncalibrated] }
        var notes = transcript.engines.compactMap { identity -> TranscriptionNote? in
            let used = calibration[identity: identity]
            let name = CalibrationTable.key(identity)
            if !used.measured { return .uncalibrated(engine: name) }
            guard !used.languages.contains(transcript.language.code) else { return nil }
            return .calibratedOnOtherLanguages(engine: name, measuredOn: used.languages.map { Language($0)?.name ?? $0 }, language: transcript.language)
        }
        guard let checker = engines.crossChecker else { return notes }
        let model = checker.identity.model
        guard let modern = transcript.engines.first(where: { $0.tier == .modern }) else {
            // --cross-check checks Whisper's words; the basic tier's stay as they were heard.
            return notes + (transcript.words.isEmpty ? [] : [.notCrossChecked(why: .basicTier, checker: model, language: transcript.language)])
        }
        if engines.crossChecker(for: transcript.language, of: modern) == nil {
            notes.append(.notCrossChecked(why: modern == checker.identity ? .onlyModel : .languageNotCovered, checker: model, language: transcript.language))
            return notes
        }
        let pair = CalibrationTable.key(modern, checkedBy: checker.identity)
        if transcript.checkedBy != nil, calibration.crossChecks[pair] == nil {
            notes.append(.crossCheckUnmeasured(pair: pair, pooled: calibration.crossCheck(modern, checkedBy: checker.identity) != nil))
        }
        let failed = transcript.chunks.filter { $0.crossCheckError != nil }
        if let first = failed.first {
            notes.append(.crossCheckFailed(checker: model, chunks: failed.count, first: TimeSpan(start: first.start, end: first.end),
                                           error: first.crossCheckError ?? ""))
        }
        return notes
    }

    /// Where the review page's timeline pins what a pass's notes say: chunks that fell back or
    /// failed, each word dropped, each loop cut.
    static func marks(of transcript: Transcript, plan: TierPlan) -> [TimelineMark] {
        var marks: [TimelineMark] = []
        for chunk in transcript.chunks {
            if chunk.outcome == .failed {
                marks.append(.init(start: chunk.start, end: chunk.end, kind: .failedChunk, text: "not recognised by any tier: " + (chunk.error ?? "")))
            } else if plan.mode == .modern && chunk.tier == .basic {
                marks.append(.init(start: chunk.start, end: chunk.end, kind: .fallback, text: "fell back to the basic tier: " + (chunk.error ?? "the modern tier failed")))
            }
        }
        marks += transcript.droppedWords.map { .init(start: $0.word.start, end: $0.word.end, kind: .dropped, text: "dropped “\($0.word.text)”: \($0.reason.explanation)") }
        marks += transcript.loopCuts.map { .init(start: $0.start, end: $0.end, kind: .dropped, text: "the recogniser looped: wrote “\($0.heard)”, kept “\($0.kept)”") }
        marks += (transcript.sounds?.musicAlone ?? []).map { .init(start: $0.start, end: $0.end, kind: .music, text: "music without a voice: not transcribed") }
        return marks
    }
}
