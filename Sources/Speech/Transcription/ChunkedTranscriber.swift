import CapforgeCore
import Foundation

public struct TranscriptionOptions: Sendable, Equatable, Codable, Hashable {
    /// A chunk's deadline is this many times its length, or 3× the time the engine was measured
    /// to need for it on this machine if that is longer...
    public var deadlineFactor: Double = 3
    /// ...but never shorter than this many seconds...
    public var minimumDeadline: Double = 20
    /// ...nor, before an engine has finished its first chunk (loading, a cold first window, a
    /// machine of unknown speed), this many.
    public var firstCallDeadline: Double = 120
    public var arbitration = ArbitrationRules()
    public var glossary = Glossary(terms: [])
    /// Off: the whole audio goes to the engine as one chunk (for comparisons; no VAD skipping).
    public var chunking = true
    /// Whisper hears one 30 s encoder pass per chunk and the next chunk opens near where it
    /// stopped, instead of a pass of its own for a sentence left over at a window's edge: about a
    /// third less time, at a measured cost in words (README, "--one-pass").
    public var onePass = false

    public init() {}
}

/// Progress after each chunk, for the batch UI.
public struct ChunkProgress: Sendable, Equatable {
    public var chunk: Int
    public var chunkCount: Int
    /// Share of the planned speech audio done, 0...1.
    public var fraction: Double
    public var record: ChunkRecord
    /// How arbitration settled the chunk's doubted stretches.
    public var verdicts: [ArbitrationVerdict]
    public var wordsSoFar: Int
    /// True when the chunk came from the journal of an earlier, interrupted run.
    public var resumed: Bool
}

/// Recognises long audio chunk by chunk: each chunk with its own deadline, falling back to the
/// basic tier when the modern one fails, and recording which tier and engine produced every
/// word, so the quality flag reflects what actually ran.
public final class ChunkedTranscriber: Sendable {
    public let engines: TierEngines
    public let planner: ChunkPlanner
    public let calibration: CalibrationTable
    public let options: TranscriptionOptions
    private let speed = EngineSpeed()

    /// `planner` defaults to one that finds speech with the engines' detector.
    public init(engines: TierEngines, planner: ChunkPlanner? = nil, calibration: CalibrationTable, options: TranscriptionOptions = TranscriptionOptions()) {
        self.engines = engines
        self.planner = planner ?? ChunkPlanner(detector: engines.speechDetector)
        self.calibration = calibration
        self.options = options
    }

    /// `speech`: the detector's regions when the caller already has them (they are computed once
    /// per file, and language detection needs them too); words outside them are checked by the
    /// hallucination guard, as are words over `sounds`' music alone (which `audio` has made
    /// silent: a word there is mistimed or invented). Only the audio of the chunks being heard is in
    /// memory (one, or the modern engine's `windowsAtOnce`; without chunking, the whole audio is).
    public func transcribe(
        _ audio: any AudioSource, plan: TierPlan, speech: [SpeechRegion]? = nil, sounds: SoundScene? = nil, journal: TranscriptionJournal? = nil,
        cancellation: Cancellation = Cancellation(), progress: (ChunkProgress) -> Void = { _ in }
    ) throws -> Transcript {
        // The regions also check the words afterwards, chunked or not.
        let regions = try speech ?? planner.detector.speechRegions(across: audio)
        let entries = try heardChunks(of: audio, plan: plan, speech: regions, journal: journal, cancellation: cancellation, progress: progress)
        let joined = try joinedAtSeams(entries, of: audio, language: plan.language, cancellation: cancellation)
        let checked = HallucinationGuard().check(joined.words.sorted { ($0.start, $0.end) < ($1.start, $1.end) }, speech: regions, sounds: sounds)
        // The engines (and models) that produced chunks or arbitrated words, not every installed one.
        let tiersUsed = Set(entries.compactMap { $0.record.outcome == .recognised ? $0.record.tier : nil } + checked.kept.map(\.tier))
        let identities = [Tier.modern, .basic].filter(tiersUsed.contains).compactMap { engines.engine($0, for: plan.language)?.identity }
        let crossChecked = checked.kept.contains { $0.evidence?.disputed != nil }
        let modern = engines.engine(.modern, for: plan.language)
        return Transcript(language: plan.language, words: checked.kept, engines: identities, chunks: entries.map(\.record), duration: audio.duration,
                          speechDetector: options.chunking ? planner.detector.name : nil,
                          droppedWords: Self.reportedOnce([checked.dropped] + joined.droppedByWindow), wordsOverNoSpeech: checked.flagged,
                          arbitrations: entries.flatMap(\.verdicts), seamErrors: joined.seamErrors,
                          checkedBy: crossChecked ? modern.flatMap { engines.crossChecker(for: plan.language, of: $0.identity)?.identity } : nil,
                          loopCuts: Self.reportedOnce(joined.loopCutsByWindow), beam: BeamTally.sum(entries.map(\.beam)))
    }

    /// The chunks' words joined where their windows overlap, and what joining them cut or could not settle.
    private struct Joined {
        var words: [Word]
        var seamErrors: [String]
        var loopCutsByWindow: [[LoopCut]]
        var droppedByWindow: [[DroppedWord]]
    }

    /// Each seam settled: two windows that agree meet at a shared word; `--one-pass` windows meet
    /// where the later one opened; others are refereed by hearing the overlap again, else cut at
    /// its middle. Guesses past a window's audio go (dropped text where no window hears that audio).
    private func joinedAtSeams(_ entries: [JournalEntry], of audio: any AudioSource, language: Language, cancellation: Cancellation) throws -> Joined {
        let chunks = entries.map(\.chunk)
        var kept = entries.map(\.words)
        var seamErrors: [String] = []
        var loopCutsByWindow = entries.map(\.loopCuts)
        var droppedByWindow = entries.map(\.droppedWords)
        func withoutGuessedEnd(_ i: Int, heardOn: Bool) {
            let split = Seam.guessedEnd(kept[i], heardEnd: entries[i].heardEnd, heardOn: heardOn)
            kept[i] = split.heard
            if !heardOn { droppedByWindow.append(split.guessed.dropped(.guessedPastWindow)) }
        }
        for i in kept.indices.dropFirst() {
            let before = entries[i - 1], start = chunks[i].start
            if options.onePass, before.heardUntil != nil {
                // The window opened at a pause near where the one before stopped, so a word or two
                // may be heard by both: they meet at such a word; otherwise each keeps its own
                // (the earlier one's times drift late near its end, so a cut by time loses words).
                if let joined = Seam.anchored(kept[i - 1], kept[i], overlap: start...max(start, before.heardEnd)) {
                    (kept[i - 1], kept[i]) = joined
                } else {
                    kept[i - 1] = Seam.fitted(kept[i - 1], endingBy: start)
                }
            } else if !Seam.stopsShort(start, of: before.heardEnd) {
                withoutGuessedEnd(i - 1, heardOn: !Seam.stopsShort(before.heardEnd, of: start))
            } else {
                // (An engine that stopped inside the overlap, the rest being this window's, has no
                // words past its stop: the windows meet no later than the middle of what both heard.)
                let overlap = start...before.heardEnd
                let middle = min(chunks[i - 1].keepUntil ?? .infinity, (overlap.lowerBound + overlap.upperBound) / 2)
                var joined = Seam.anchored(kept[i - 1], kept[i], overlap: overlap)
                if joined == nil {
                    do {
                        if let referee = try refereed(kept[i - 1], kept[i], before, entries[i], of: audio, language: language, cancellation: cancellation) {
                            joined = (referee.earlier, referee.later)
                            loopCutsByWindow.append(referee.filling.loopCuts)
                            droppedByWindow.append(referee.filling.droppedWords)
                        }
                    } catch where cancellation.isCancelled {
                        throw Cancelled()
                    } catch {
                        seamErrors.append(String(format: "at %.1f s: ", middle) + "\(error)")
                    }
                }
                (kept[i - 1], kept[i]) = joined ?? Seam.cut(kept[i - 1], kept[i], at: middle)
            }
            kept[i] = Seam.withoutDuplicates(kept[i], after: kept[i - 1])
        }
        if let last = entries.indices.last, Seam.stopsShort(entries[last].heardEnd, of: audio.endTime) {
            withoutGuessedEnd(last, heardOn: false)
        }
        return Joined(words: kept.flatMap { $0 }, seamErrors: seamErrors, loopCutsByWindow: loopCutsByWindow, droppedByWindow: droppedByWindow)
    }

    /// Every chunk heard (or taken from the journal of an interrupted run), in order, each journaled
    /// and reported as it is taken in.
    private func heardChunks(
        of audio: any AudioSource, plan: TierPlan, speech regions: [SpeechRegion], journal: TranscriptionJournal?,
        cancellation: Cancellation, progress: (ChunkProgress) -> Void
    ) throws -> [JournalEntry] {
        let previous = journal?.finished ?? [:]
        let speechTotal = regions.reduce(0) { $0 + $1.duration }
        var entries: [JournalEntry] = []
        var schedule = Schedule(upcoming: options.chunking ? planner.plan(regions: regions)
            : [PlannedChunk(index: 0, start: audio.startTime, end: audio.endTime, keepFrom: nil, keepUntil: nil)])
        let plannedChunks = schedule.remaining
        // Chunks are heard side by side where the engine does that best, asked when a chunk is
        // first to be heard (asking loads a model, which silence never needs); `--one-pass` plans
        // each chunk from where the one before stopped, so there one waits for the other.
        let modernTier = plan.mode == .basic ? nil : engines.engine(.modern, for: plan.language)
        var lanes: Int? = options.chunking && !options.onePass && modernTier != nil ? nil : 1
        // Chunks begun and not yet taken in, in order; entries, the journal and progress take them
        // in that order. A lane that finished goes on with the next chunk, however far ahead of
        // one still being heard (base spent 27 s on one chunk of the held-out recording, where
        // others take 2 s): those wait, heard but not yet journaled, for the chunks before them.
        var begun: [Begun] = []
        defer { for chunk in begun { chunk.abandon() } }
        let finishedOne = DispatchSemaphore(value: 0)
        // One lane, or lanes not yet known, hears in this thread: a chunk there is taken in before the next begins.
        func laneFree() -> Bool {
            guard let lanes, lanes > 1 else { return begun.isEmpty }
            return begun.count(where: \.isBeingHeard) < lanes
        }
        while true {
            while laneFree(), let (chunk, following) = try schedule.next(placingWith: options.chunking ? planner : nil, in: audio) {
                // A chunk that failed is tried again (the engine may have been repaired since).
                if let earlier = previous[chunk.index], earlier.chunk == chunk, earlier.record.outcome != .failed {
                    begun.append(.resumed(earlier))
                    continue
                }
                if cancellation.isCancelled { throw Cancelled() }
                let hearing: @Sendable (Cancellation) throws -> JournalEntry = { [self] cancellation in
                    try recognise(chunk, before: following, of: audio, speech: regions, plan: plan, cancellation: cancellation)
                }
                // No more lanes than chunks: a short file's one chunk gets every core (a 28 s file
                // took tiny.en 1.5 s on one, 1.3 s on two). A lane's share is fixed by the plan, not
                // by timing, so a chunk's words (which change with the thread count) are the same
                // on every run and after a resume.
                let sideBySide = lanes ?? max(1, min(plannedChunks, modernTier?.windowsAtOnce ?? 1))
                lanes = sideBySide
                guard sideBySide > 1, let modernTier else {
                    begun.append(.heard(try hearing(cancellation)))
                    continue
                }
                let work = BackgroundWork(under: cancellation, prepare: { modernTier.shareCores(among: sideBySide) }, done: finishedOne, hearing)
                begun.append(.hearing(work, start: chunk.start))
            }
            guard let first = begun.first else { break }
            if first.isBeingHeard {
                // Any chunk finishing frees a lane; a signal left from one taken in meanwhile only loops once more.
                finishedOne.wait()
                continue
            }
            let next = begun.removeFirst()
            let entry = try next.entry()
            if !next.isResumed { try journal?.append(entry) }
            entries.append(entry)
            // With `--one-pass`, an engine that stopped short of the chunk's end goes on from a
            // pause near there, and the rest of the speech is planned again from it.
            if options.onePass, let stopped = entry.heardUntil {
                schedule.replan(planner.plan(regions: Self.regions(regions, after: try restart(after: stopped, chunk: entry.chunk, in: audio))))
            }
            let nextStart = begun.first?.start ?? schedule.nextStart
            let heard = speechTotal - Self.regions(regions, after: nextStart ?? audio.endTime).reduce(0) { $0 + $1.duration }
            progress(ChunkProgress(
                chunk: entry.chunk.index, chunkCount: entries.count + begun.count + schedule.remaining,
                fraction: speechTotal > 0 && nextStart != nil ? min(1, heard / speechTotal) : 1,
                record: entry.record, verdicts: entry.verdicts, wordsSoFar: entries.reduce(0) { $0 + $1.words.count }, resumed: next.isResumed))
            // Stopped, perhaps after the last chunk began: what was taken in is journaled for the rerun.
            if cancellation.isCancelled { throw Cancelled() }
        }
        return entries
    }

    /// The chunks still to hear, in order, their edges placed at pauses a pair at a time as they
    /// are given out (a plan may change on the way).
    private struct Schedule {
        var upcoming: [PlannedChunk]
        /// The next chunk as placed with the one before it (its start moved to a pause).
        var placedNext: PlannedChunk?
        var given = 0

        /// The next chunk and where the one after it starts; `planner` places the edges (nil: as planned).
        mutating func next(placingWith planner: ChunkPlanner?, in audio: any AudioSource) throws -> (PlannedChunk, following: Double?)? {
            guard !upcoming.isEmpty else { return nil }
            let pair = try planner?.placedAtPauses(Array(upcoming.prefix(2)), in: audio) ?? upcoming
            var chunk = placedNext ?? pair[0]
            (chunk.end, chunk.keepUntil, chunk.index) = (pair[0].end, pair[0].keepUntil, given)
            placedNext = pair.dropFirst().first
            upcoming.removeFirst()
            given += 1
            return (chunk, placedNext?.start)
        }

        mutating func replan(_ chunks: [PlannedChunk]) {
            upcoming = chunks
            placedNext = nil
        }

        var nextStart: Double? { placedNext?.start ?? upcoming.first?.start }
        var remaining: Int { upcoming.count }
    }

    /// A chunk given out: taken from the journal, heard, or being heard on a thread of its own.
    private enum Begun {
        case resumed(JournalEntry)
        case heard(JournalEntry)
        case hearing(BackgroundWork<JournalEntry>, start: Double)

        func entry() throws -> JournalEntry {
            switch self {
            case .resumed(let entry), .heard(let entry): return entry
            case .hearing(let work, _): return try work.value()
            }
        }

        var isResumed: Bool {
            if case .resumed = self { return true }
            return false
        }

        var isBeingHeard: Bool {
            if case .hearing(let work, _) = self { return !work.isFinished }
            return false
        }

        var start: Double {
            switch self {
            case .resumed(let entry), .heard(let entry): return entry.chunk.start
            case .hearing(_, let start): return start
            }
        }

        func abandon() {
            if case .hearing(let work, _) = self { work.abandon() }
        }
    }

    /// Windows that overlap may each drop the same words over no speech: a word is reported once,
    /// unless it is there twice in one window ("Bye bye.").
    static func reportedOnce(_ droppedByWindow: [[DroppedWord]]) -> [DroppedWord] {
        var reported: [DroppedWord] = []
        var startsByKey: [String: [Double]] = [:]
        for dropped in droppedByWindow {
            let fresh = dropped.filter { drop in
                !(startsByKey[drop.word.text.spellingKey] ?? []).contains { abs($0 - drop.word.start) < 1 }
            }
            for word in fresh.map(\.word) { startsByKey[word.text.spellingKey, default: []].append(word.start) }
            reported += fresh
        }
        return reported.sorted { ($0.word.start, $0.word.end) < ($1.word.start, $1.word.end) }
    }

    /// Overlapping windows may each cut the same loop: cuts from different windows that overlap in
    /// time are one loop, reported as the one that cut the most (two cuts in one window are two loops).
    static func reportedOnce(_ cutsByWindow: [[LoopCut]]) -> [LoopCut] {
        var reported: [LoopCut] = []
        for cuts in cutsByWindow {
            let earlier = reported.indices
            for cut in cuts {
                if let same = earlier.first(where: { reported[$0].start < cut.end && cut.start < reported[$0].end }) {
                    if cut.wordsCut > reported[same].wordsCut { reported[same] = cut }
                } else {
                    reported.append(cut)
                }
            }
        }
        return reported.sorted { $0.start < $1.start }
    }

    /// Seconds of speech one word may account for when judging what a window heard.
    static let longestWord = 2.0

    /// A window ahead of the cursor smaller than this would only repeat the one before it.
    static let minimumAdvance = 1.0
    /// An engine that stopped this close to a window's end heard all of it (Whisper's times are
    /// centiseconds, and a next window for the rounding would cost a whole encoder pass).
    static let endTolerance = 0.05

    /// How far around where an engine stopped the next window may open, to open at a pause:
    /// Whisper's last timestamp falls within a word or two of the real end of its sentence, and a
    /// window that opens mid-word makes it invent words.
    static let restartSearch = (before: 0.75, after: 0.25)

    /// Where the window after `chunk` opens when the engine stopped listening at `stopped`: the
    /// quietest moment near it, and at least `minimumAdvance` into the chunk.
    private func restart(after stopped: Double, chunk: PlannedChunk, in audio: any AudioSource) throws -> Double {
        let from = max(chunk.start + Self.minimumAdvance, stopped - Self.restartSearch.before)
        let to = max(from, min(audio.endTime, stopped + Self.restartSearch.after))
        return to - from < 0.1 ? from : try ChunkPlanner.quietest(in: audio, from: from, to: to, nearest: .end)
    }

    /// The speech after `cursor` (a region the cursor falls in starts there).
    static func regions(_ regions: [SpeechRegion], after cursor: Double) -> [SpeechRegion] {
        regions.compactMap { $0.end > cursor ? $0.clipped(from: cursor, to: $0.end) : nil }
    }

    /// `following`: where the next chunk starts, when known. Whisper stops rather than pay an
    /// encoder pass for a sentence left over inside the next chunk's overlap (or, `--one-pass`,
    /// anywhere: the next chunk opens where it stopped).
    private func recognise(
        _ chunk: PlannedChunk, before following: Double?, of audio: any AudioSource, speech: [SpeechRegion], plan: TierPlan, cancellation: Cancellation
    ) throws -> JournalEntry {
        let clip = try audio.slice(from: chunk.start, to: chunk.end)
        func attempt(_ tier: Tier) throws -> Attempt {
            guard let engine = engines.engine(tier, for: plan.language) else { return .noEngine }
            do {
                let nextWindowFrom = options.onePass && options.chunking ? chunk.start : following.flatMap { $0 < chunk.end ? $0 : nil }
                return .heard(try hear(clip, speech: chunk.speech, of: audio, with: engine, language: plan.language,
                                       nextWindowFrom: nextWindowFrom, cancellation: cancellation))
            } catch where cancellation.isCancelled {
                // The user stopped the run: abandon the chunk rather than recording a failure.
                throw Cancelled()
            } catch {
                return .failed(error)
            }
        }
        func entry(_ heard: Heard) -> JournalEntry {
            let stopped = heard.heardUntil < chunk.end - Self.endTolerance ? heard.heardUntil : nil
            let record = ChunkRecord(start: chunk.start, end: stopped ?? chunk.end, outcome: heard.words.isEmpty ? .silence : .recognised,
                                     tier: heard.engine.tier, engine: heard.engine.engine, crossCheckError: heard.crossCheckError)
            return JournalEntry(chunk: chunk, record: record, words: heard.words, heardUntil: stopped, loopCuts: heard.window.loopCuts,
                                droppedWords: heard.window.droppedWords, beam: heard.window.beam)
        }
        func failed(_ attempts: [Attempt]) -> JournalEntry {
            let reasons = attempts.compactMap { $0.error.map { "\($0)" } }
            let reason = reasons.isEmpty ? "no engine for \(plan.language)" : reasons.joined(separator: "; then ")
            return JournalEntry(chunk: chunk, record: ChunkRecord(start: chunk.start, end: chunk.end, outcome: .failed, error: reason), words: [])
        }
        func basicAfter(_ first: Attempt) throws -> JournalEntry {
            let second = try attempt(.basic)
            guard case .heard(let heard) = second else { return failed([first, second]) }
            var fallback = entry(heard)
            // Keep why the modern tier gave up: the report shows what actually ran and why.
            if let error = first.error { fallback.record.error = "modern tier: \(error)" }
            return fallback
        }

        /// Modern words that cannot be what was said go: to the basic tier's words where it may
        /// stand in (flagged, with why), else dropped with a warning.
        func unlessUnheard(_ heard: Heard, fallback: Bool, otherwise: (JournalEntry) throws -> JournalEntry) throws -> JournalEntry {
            guard let shortfall = try unheard(heard, in: clip, speech: speech, language: plan.language, cancellation: cancellation) else {
                return try otherwise(entry(heard))
            }
            if fallback, case .heard(let basic) = try attempt(.basic) {
                var fallen = entry(basic)
                fallen.record.error = "modern tier: \(shortfall)"
                return fallen
            }
            var silent = heard
            silent.window.words = []
            var dropped = entry(silent)
            dropped.droppedWords += heard.words.dropped(.underHeard)
            dropped.record.error = shortfall
            return dropped
        }

        switch plan.mode {
        case .modern:
            let first = try attempt(.modern)
            if case .heard(let heard) = first { return try unlessUnheard(heard, fallback: plan.basicFallback) { $0 } }
            return plan.basicFallback ? try basicAfter(first) : failed([first])
        case .basic:
            let only = try attempt(.basic)
            if case .heard(let heard) = only { return entry(heard) }
            return failed([only])
        case .arbitrate:
            let first = try attempt(.modern)
            if case .heard(let heard) = first {
                return try unlessUnheard(heard, fallback: true) { try arbitrated($0, of: audio, language: plan.language, cancellation: cancellation) }
            }
            // The modern tier failed on the chunk: the basic tier hears it whole, as under auto.
            return try basicAfter(first)
        }
    }

    /// Why the modern words of a window cannot be what was said (`SpeechCoverage`), or nil. A
    /// translation made only of stock phrases ("Please subscribe and like. Thank you.") is judged
    /// by what the same model transcribes there: a translation of speech it did not make out is
    /// not evidence either.
    private func unheard(_ heard: Heard, in clip: MonoAudio, speech: [SpeechRegion], language: Language, cancellation: Cancellation) throws -> String? {
        guard heard.engine.tier == .modern, let engine = engines.engine(.modern, for: language) else { return nil }
        let seconds = SpeechCoverage.speechSeconds(speech, from: clip.startTime, to: heard.heardUntil)
        guard let translating = engine as? TranslatingEngine else {
            return SpeechCoverage.shortfall(heard.words, speechSeconds: seconds, model: heard.engine.model)
        }
        guard HallucinationGuard.isStockText(heard.words) else { return nil }
        let source = try listen(clip, with: translating.source, language: language, cancellation: cancellation).words
        let translation = "the translation “\(heard.words.map(\.text).joined(separator: " "))” is a stock phrase"
        if source.isEmpty { return "\(translation), and \(heard.engine.model) heard no \(language.name) words there" }
        return SpeechCoverage.shortfall(source, speechSeconds: seconds, model: heard.engine.model).map { "\(translation), and \($0)" }
    }

    /// One tier's try at a chunk.
    private enum Attempt {
        case noEngine
        case failed(Error)
        case heard(Heard)

        var error: Error? {
            if case .failed(let error) = self { return error }
            return nil
        }
    }

    /// One engine call under its deadline, timed for the deadlines that follow. With
    /// `nextWindowFrom`, an engine that hears a fixed span may stop where a next window hears on.
    private func listen(
        _ audio: MonoAudio, with engine: any SpeechEngine, language: Language, nextWindowFrom: Double? = nil, cancellation: Cancellation
    ) throws -> HeardWindow {
        let expected = speed.expectedWork(engine.identity, audioSeconds: audio.duration)
        let floor = expected == nil ? max(options.minimumDeadline, options.firstCallDeadline) : options.minimumDeadline
        // An engine is stuck, not slow, when it takes several times what it has needed before.
        let allowed = max(floor, options.deadlineFactor * audio.duration, 3 * (expected ?? 0))
        let began = Date()
        let limited = cancellation.child(deadline: began.addingTimeInterval(allowed))
        let heard = try engine.transcribeWindow(audio, language: language, nextWindowFrom: nextWindowFrom, cancellation: limited)
        speed.record(engine.identity, audioSeconds: audio.duration, workSeconds: Date().timeIntervalSince(began))
        return heard
    }

    /// What one engine heard in a window, its words calibrated and glossary-corrected, and
    /// cross-checked when a second model is there for it.
    private struct Heard {
        var engine: EngineIdentity
        var window: HeardWindow
        var crossCheckError: String?

        var words: [Word] { window.words }
        var heardUntil: Double { window.heardUntil }
    }

    /// Whisper can stop decoding at a long pause and drop everything after it: speech the
    /// detector found after the last word is heard again, from there to the window's end, or
    /// left to the next window where that hears it (from `nextWindowFrom`). (A window with no
    /// words at all is silence or noise, not a decoder that stopped.)
    private func hear(
        _ clip: MonoAudio, speech: [SpeechRegion], of audio: any AudioSource, with engine: any SpeechEngine, language: Language,
        nextWindowFrom: Double?, cancellation: Cancellation
    ) throws -> Heard {
        func withRest(_ engine: any SpeechEngine, hearing clip: MonoAudio, nextWindowFrom: Double?) throws -> HeardWindow {
            var heard = try listen(clip, with: engine, language: language, nextWindowFrom: nextWindowFrom, cancellation: cancellation)
            // Whisper sometimes skips to its segment's end and stretches the last word it said
            // there ("here." timed 827.98-851.28 s over 23 s of unheard speech): no word lasts longer.
            let lastWordEnd = heard.words.map { min($0.end, $0.start + Self.longestWord) }.max() ?? .infinity
            let unheard = speech.filter { $0.start >= lastWordEnd && $0.start < heard.heardUntil }
            if let first = unheard.first, unheard.reduce(0, { $0 + $1.duration }) >= 0.5 {
                if let nextWindowFrom, first.start >= nextWindowFrom {
                    heard.heardUntil = first.start
                } else {
                    heard.add(try listen(try audio.slice(from: first.start, to: clip.endTime), with: engine, language: language,
                                         cancellation: cancellation))
                }
            }
            heard.words.sort { ($0.start, $0.end) < ($1.start, $1.end) }
            return heard
        }
        var heard = try withRest(engine, hearing: clip, nextWindowFrom: nextWindowFrom)
        let words = heard.words
        func finished(_ words: [Word], checkedBy checker: EngineIdentity? = nil, crossCheckError: String? = nil) -> Heard {
            heard.words = finish(words, producedBy: engine.identity, checkedBy: checker)
            return Heard(engine: engine.identity, window: heard, crossCheckError: crossCheckError)
        }
        guard !words.isEmpty, let checker = engines.crossChecker(for: language, of: engine.identity) else { return finished(words) }
        do {
            // The second model hears what the first did, whole.
            let span = heard.heardUntil < clip.endTime ? try audio.slice(from: clip.startTime, to: heard.heardUntil) : clip
            let other = try withRest(checker, hearing: span, nextWindowFrom: nil).words
            return finished(CrossCheck.marked(words, against: other, language: language), checkedBy: checker.identity)
        } catch where cancellation.isCancelled {
            throw Cancelled()
        } catch {
            return finished(words, crossCheckError: "\(error)")
        }
    }

    /// Two windows that share no anchor disagree over their overlap, and near its edge a window
    /// is least reliable: it stops early, repeats itself, or times its first words seconds off. A
    /// third window of the same engine, centred on the overlap, hears it far from any edge; it
    /// joins both and fills the seam when it anchors with each (`filling`: its words there, and
    /// the loops it cut and words it dropped there). nil: the middle decides (so it does when the
    /// third window fails, and the caller says so).
    private func refereed(
        _ earlier: [Word], _ later: [Word], _ before: JournalEntry, _ after: JournalEntry,
        of audio: any AudioSource, language: Language, cancellation: Cancellation
    ) throws -> (earlier: [Word], later: [Word], filling: HeardWindow)? {
        guard before.record.outcome == .recognised, after.record.outcome == .recognised, before.record.tier == after.record.tier,
              let tier = before.record.tier, let engine = engines.engine(tier, for: language) else { return nil }
        let centre = (after.chunk.start + before.heardEnd) / 2
        let plannedStart = max(before.chunk.start, centre - planner.targetLength / 2)
        let plannedEnd = min(after.chunk.end, plannedStart + planner.targetLength)
        // Its edges, like a chunk's, move to a pause: opening mid-word, it timed a real window's
        // words 6 s early and anchored with neither neighbour.
        let (from, to) = try ChunkPlanner.edgesAtPauses(
            plannedStart, plannedEnd, moving: (start: plannedStart > before.chunk.start, end: plannedEnd < after.chunk.end), in: audio)
        let heard = try hear(try audio.slice(from: from, to: to), speech: [], of: audio, with: engine, language: language,
                             nextWindowFrom: nil, cancellation: cancellation)
        if let error = heard.crossCheckError { throw SpeechError.engineFailed(engine: "the cross-check of the refereeing window", reason: error) }
        guard let (kept, middle) = Seam.anchored(earlier, heard.words, overlap: from...before.heardEnd),
              let (filled, rest) = Seam.anchored(middle, later, overlap: after.chunk.start...to) else { return nil }
        let filledFrom = kept.last?.end ?? from, filledUntil = rest.first?.start ?? to
        var filling = heard.window
        filling.words = filled
        filling.loopCuts.removeAll { $0.end <= filledFrom || $0.start >= filledUntil }
        filling.droppedWords.removeAll { $0.word.end <= filledFrom || $0.word.start >= filledUntil }
        return (kept + filled, rest, filling)
    }

    /// The modern words of `entry` with every doubted stretch heard again by the basic tier (with
    /// some context around it) and settled by the arbitration rules; each verdict is kept.
    private func arbitrated(_ entry: JournalEntry, of audio: any AudioSource, language: Language, cancellation: Cancellation) throws -> JournalEntry {
        guard let rival = engines.engine(.basic, for: language) else { return entry }
        let rules = options.arbitration
        var result = entry
        var verdicts: [ArbitrationVerdict] = []
        // Last stretch first, so replacing one leaves the indices of the earlier ones valid.
        for stretch in rules.doubtedStretches(entry.words).reversed() {
            let modern = Array(entry.words[stretch])
            let start = modern.first!.start, end = modern.map(\.end).max()!
            let from = max(entry.chunk.start, start - rules.context), to = min(entry.chunk.end, end + rules.context)
            do {
                let heard = try listen(try audio.slice(from: from, to: to), with: rival, language: language, cancellation: cancellation).words
                // The rival's words for the stretch itself: the context was only there to decode in.
                let inside = heard.filter { (start...end).contains($0.middle) }
                let words = finish(inside, producedBy: rival.identity)
                let rule = rules.decide(modern: modern, rival: words, glossary: options.glossary)
                if rule == .rivalMoreConfident { result.words.replaceSubrange(stretch, with: words) }
                verdicts.append(ArbitrationVerdict(start: start, end: end, rule: rule, modern: modern, rival: words))
            } catch where cancellation.isCancelled {
                throw Cancelled()
            } catch {
                verdicts.append(ArbitrationVerdict(start: start, end: end, rule: .rivalFailed, modern: modern, rival: [], error: "\(error)"))
            }
        }
        result.verdicts = verdicts.reversed()
        return result
    }

    /// Words as an engine gave them, calibrated and glossary-corrected (a window's overlaps are
    /// kept: `Seam` joins neighbours once every window is in).
    private func finish(_ words: [Word], producedBy identity: EngineIdentity, checkedBy checker: EngineIdentity? = nil) -> [Word] {
        options.glossary.apply(to: calibration.apply(to: words, producedBy: identity, checkedBy: checker))
    }
}
