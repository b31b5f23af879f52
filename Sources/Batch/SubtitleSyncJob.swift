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
    /// The language the speech was heard in, and how it was decided.
    public var language: Language?
    /// Why the words could not be used, where the speech regions were used instead.
    public var fallback: String?
    public var warnings: [String]
    public var unplacedCues: [(start: Int, text: String)]
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

    /// `language`: the speech's, when known (`--lang`, or the subtitle file's name).
    public func run(video: URL, subtitles: URL, output: URL, language: Language?, policy: OutputPolicy,
                    cancellation: Cancellation, progress: (String) -> Void) throws -> SyncReport {
        let data = try UserFile.read(subtitles, what: "subtitle file", limit: 64_000_000)
        let file: RetimableSubtitles
        do {
            file = try RetimableSubtitles(data: data, format: SubtitleFormat(fileExtension: subtitles.pathExtension))
        } catch let error as SubtitleReadError {
            throw CaptionFilesError.unreadable(path: subtitles.path, reason: error)
        }
        guard !file.entries.isEmpty else { throw SyncError.noCues(path: subtitles.path) }
        // Refused before the long part: an input, a device, a file Capforge did not write.
        _ = try policy.destination(for: output)
        let probe = try MediaProbe(path: video.path)
        progress("extracting audio")
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: spool) }
        let audio = try SpooledAudio(in: spool)
        let extraction = try AudioExtractor(path: video.path, selection: .automatic).extract(cancellation: cancellation, silence: audio.appendSilence) {
            try audio.append($0)
        }
        try audio.finish()
        var warnings = extraction.warnings.map(\.description)
        let streamLanguage = (try? probe.audioStream(.automatic))?.language
        let request = TranscriptionRequest(language: language ?? streamLanguage, languageSource: language != nil ? .requested : streamLanguage != nil ? .streamTag : .fallback,
                                           tier: tier, translate: false, alsoOriginal: false)
        progress("finding speech")
        let planned = try transcription.plan(audio, request: request)
        warnings += planned.notes.map(\.description)
        let mediaEnd = probe.mediaEnd(.automatic).map { Int(($0 * 1000).rounded()) }
        var result: SyncResult?
        var fallback: String?
        if planned.plan.mode == .basic {
            fallback = "no modern model covers \(planned.plan.language.name): timed by where speech is, not by the words"
        } else if let pass = try planned.passes.get().first {
            let heard = try transcription.transcribe(audio, pass: pass, of: planned, journal: nil, cancellation: cancellation) { chunk in
                progress("hearing chunk \(chunk.chunk + 1) of \(chunk.chunkCount)")
            }
            result = SubtitleSync.byWords(file.entries, words: heard.transcript.words, mediaEnd: mediaEnd)
            if result == nil {
                fallback = "too few of the cues' words were heard (are the subtitles in another language than the speech?): timed by where speech is"
            }
        }
        // Where speech starts and ends, which the recogniser's context-padded regions do not say.
        let synced = try result ?? SubtitleSync.bySpeech(
            file.entries, speech: transcription.speechForTiming(audio).map { TimeSpan(start: $0.start, end: $0.end) }, mediaEnd: mediaEnd)
        try AtomicFile.write(file.retimed(synced.times), to: output, policy: policy)
        return SyncReport(output: output, result: synced, cues: file.entries.count, language: planned.plan.language, fallback: fallback,
                          warnings: warnings, unplacedCues: synced.unplaced.map { (file.entries[$0].start, file.entries[$0].text) })
    }
}

public enum SyncError: Error, CustomStringConvertible {
    case noCues(path: String)

    public var description: String {
        switch self {
        case .noCues(let path): return "\(path): holds no cues to re-time"
        }
    }
}
