import CapforgeCore
import Captions
import Foundation
import Media
import Speech

/// What re-timing a subtitle file did: the map, what it rests on, what moved and what did not.
public struct SyncReport: Sendable {
    public var output: URL
    public var result: SyncResult
    public var cues: Int
    /// The language the speech was heard in.
    public var language: Language?
    /// Every cue left out, by its start on the subtitles' clock.
    public var unplacedCues: [(start: Int, text: String)]
    /// What was not asked for: extraction's and transcription's notes, the fall back to speech,
    /// the cues left out (named up to a screenful, then counted) and those shortened.
    public var warnings: [String]

    /// Cues named one by one before the rest are counted (the JSON lists them all).
    static let namedCues = 20
}

/// Re-times one subtitle file to a copy of its media: the audio is extracted and heard, the
/// cues' words matched to the recognised words (or, without a modern model for the language,
/// their coverage to the speech), and the file written again with only its times changed.
public struct SubtitleSyncJob {
    let transcription: FileTranscriber
    public let tier: TierPreference

    public init(engines: TierEngines, tier: TierPreference) {
        transcription = FileTranscriber(engines: engines, calibration: MeasuredCalibration.table, options: TranscriptionOptions(), translates: false)
        self.tier = tier
    }

    /// One subtitle file to re-time, and where its re-timed copy goes.
    public struct Request: Sendable {
        public var subtitles: URL
        public var output: URL

        public init(subtitles: URL, output: URL) {
            self.subtitles = subtitles
            self.output = output
        }
    }

    /// `language`: the speech's, when known (`--lang`, or the subtitle file's name).
    public func run(video: URL, subtitles: URL, output: URL, language: Language?, policy: OutputPolicy,
                    cancellation: Cancellation, progress: (String) -> Void) throws -> SyncReport {
        try run(video: video, requests: [Request(subtitles: subtitles, output: output)], language: language, policy: policy,
                cancellation: cancellation, progress: progress)[0].get()
    }

    /// Re-times every subtitle file of `requests` to `video`, whose speech is heard once. A file
    /// that cannot be read or written fails alone; what fails for the video fails them all
    /// (thrown), as does an interruption.
    public func run(video: URL, requests: [Request], language: Language?, policy: OutputPolicy,
                    cancellation: Cancellation, progress: (String) -> Void) throws -> [Result<SyncReport, Error>] {
        var results: [Result<SyncReport, Error>?] = requests.map { _ in nil }
        var files: [(index: Int, file: RetimableSubtitles)] = []
        for (index, request) in requests.enumerated() {
            do {
                let file = try Self.read(request.subtitles)
                // Refused before the long part: an input, a device, a file Capforge did not write.
                _ = try policy.destination(for: request.output)
                files.append((index, file))
            } catch {
                results[index] = .failure(error)
            }
        }
        if !files.isEmpty {
            let probe = try MediaProbe(path: video.path)
            let known = CaptionPipeline.knownLanguage(probe, choice: language.map(LanguageChoice.fixed) ?? .auto)
            progress("extracting audio")
            let (audio, extraction) = try AudioExtractor(path: video.path, selection: known.stream).spool(in: .temporary, cancellation: cancellation)
            var warnings = extraction.warnings.map(\.description)
            progress("finding speech")
            let planned = try transcription.plan(audio, request: TranscriptionRequest(language: known.language, languageSource: known.source, tier: tier))
            warnings += planned.notes.map(\.description)
            let mediaEnd = probe.mediaEnd(known.stream).map { Int(($0 * 1000).rounded()) }
            var words: [Word]?
            if planned.plan.mode == .basic {
                warnings.append("no modern model covers \(planned.plan.language.name): timed by where speech is, not by the words")
            } else if let pass = try planned.passes.get().first {
                do {
                    let heard = try transcription.transcribe(audio, pass: pass, of: planned, journal: nil, cancellation: cancellation) { chunk in
                        progress("hearing chunk \(chunk.chunk + 1) of \(chunk.chunkCount)")
                    }
                    // What the recogniser fell back on, dropped or assumed is said as for captions.
                    warnings += heard.notes.map(\.description)
                    words = heard.transcript.words
                } catch let error as FileTranscriptionError {
                    warnings.append("\(error): timed by where speech is")
                }
            }
            // Where speech starts and ends (not the recogniser's context-padded regions), found
            // once, for the files the words cannot time.
            var speech: [TimeSpan]?
            for (index, file) in files {
                if cancellation.isCancelled { throw Cancelled() }
                var fileWarnings = warnings + file.warnings
                var synced = words.flatMap { SubtitleSync.byWords(file.entries, words: $0, mediaEnd: mediaEnd) }
                if words != nil, synced == nil {
                    fileWarnings.append("too few of the cues' words were heard (are the subtitles in another language than the speech?): timed by where speech is")
                }
                if synced == nil {
                    if speech == nil { speech = try transcription.speechForTiming(audio).map { TimeSpan(start: $0.start, end: $0.end) } }
                    if speech!.isEmpty { fileWarnings.append("no speech was found in \(video.path): nothing to re-time by, so the cues keep their times") }
                    synced = SubtitleSync.bySpeech(file.entries, speech: speech!, mediaEnd: mediaEnd)
                }
                results[index] = Result {
                    try Self.write(file, synced!, of: requests[index], mediaEnd: mediaEnd, policy: policy, language: planned.plan.language, warnings: fileWarnings)
                }
            }
        }
        return results.map { $0! }
    }

    private static func read(_ subtitles: URL) throws -> RetimableSubtitles {
        let data = try UserFile.read(subtitles, what: "subtitle file", limit: 64_000_000)
        let file: RetimableSubtitles
        do {
            file = try RetimableSubtitles(data: data, format: SubtitleFormats.reading(fileExtension: subtitles.pathExtension)?.id)
        } catch let error as SubtitleReadError {
            throw CaptionFilesError.unreadable(path: subtitles.path, reason: error)
        }
        guard !file.entries.isEmpty else { throw SyncError.noCues(path: subtitles.path) }
        return file
    }

    /// The re-timed file written, and what was left out or shortened said; a file of no cue at
    /// all is no re-timed copy, and is not written.
    private static func write(_ file: RetimableSubtitles, _ synced: SyncResult, of request: Request, mediaEnd: Int?, policy: OutputPolicy,
                              language: Language, warnings: [String]) throws -> SyncReport {
        let output = request.output
        guard synced.times.contains(where: { $0 != nil }) else {
            let first = file.entries.map(\.start).min() ?? 0, last = file.entries.map(\.end).max() ?? 0
            throw SyncError.everyCueOutside(path: request.subtitles.path, cues: file.entries.count, runs: (first, last),
                                            mapped: (synced.map.map(first, segment: 0), synced.map.map(last, segment: synced.map.segments.count - 1)),
                                            mediaEnd: mediaEnd, map: synced.map.description)
        }
        var warnings = warnings
        try AtomicFile.write(file.retimed(synced.times), to: output, policy: policy)
        let unplaced = synced.unplaced.map { (start: file.entries[$0].start, text: file.entries[$0].text) }
        for cue in unplaced.prefix(SyncReport.namedCues) {
            warnings.append("the cue at \(ClockTime.tenths(Double(cue.start) / 1000)) of the subtitles lands outside this copy or on a stretch it lacks, and was left out: “\(Format.shortened(cue.text, to: 60))”")
        }
        if unplaced.count > SyncReport.namedCues {
            warnings.append("\(unplaced.count - SyncReport.namedCues) more cue(s) left out likewise (--json lists them all)")
        }
        if synced.shortened > 0 { warnings.append("\(synced.shortened) cue(s) now end where the next begins (they met at a split)") }
        return SyncReport(output: output, result: synced, cues: file.entries.count, language: language, unplacedCues: unplaced, warnings: warnings)
    }
}

public enum SyncError: Error, CustomStringConvertible {
    case noCues(path: String)
    /// Every cue mapped outside the media: the cues' span on the subtitles' clock and mapped
    /// (milliseconds), the media's end, the map.
    case everyCueOutside(path: String, cues: Int, runs: (Int, Int), mapped: (Int, Int), mediaEnd: Int?, map: String)

    public var description: String {
        switch self {
        case .noCues(let path): return "\(path): holds no cues to re-time"
        case .everyCueOutside(let path, let cues, let runs, let mapped, let mediaEnd, let map):
            func time(_ milliseconds: Int) -> String { (milliseconds < 0 ? "-" : "") + ClockTime.tenths(Double(abs(milliseconds)) / 1000) }
            let copy = mediaEnd.map { "this copy (0:00.0–\(time($0)))" } ?? "this copy"
            let distance = if let mediaEnd, mapped.0 >= mediaEnd { "\(time(mapped.0 - mediaEnd)) after it ends" }
                else if mapped.1 <= 0 { "\(time(-mapped.1)) before it starts" } else { "on stretches this copy lacks" }
            return "\(path): all \(cues) cue(s) fall outside \(copy): they run \(time(runs.0))–\(time(runs.1)) on the subtitles' clock, "
                + "and the map found (\(map)) puts them at \(time(mapped.0))–\(time(mapped.1)), \(distance); nothing was written. "
                + "Check that the subtitles belong to this video; if their times count from a start time code (such as 01:00:00:00), take it off first"
        }
    }
}
