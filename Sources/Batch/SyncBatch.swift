import CapforgeCore
import Captions
import Foundation
import Media

/// `caption --sync`: the subtitle files that sit beside each video under its name (talk.fr.srt
/// beside talk.mp4) re-timed to it, each written as `talk.fr.synced.srt`; the video is heard once
/// for all of them.
public struct SyncBatch {
    /// A video and the subtitle files named after it.
    public struct Pair: Sendable {
        public let input: BatchInput
        public let subtitles: [URL]
    }

    /// What became of one subtitle file.
    public struct Outcome: Sendable {
        public enum Status: String, Sendable { case done, skipped, failed }
        public let input: BatchInput
        public let subtitles: URL
        public let output: URL
        public let status: Status
        public let report: SyncReport?
        public let error: String?
    }

    let job: SubtitleSyncJob

    public init(job: SubtitleSyncJob) {
        self.job = job
    }

    /// The subtitle files beside each input named `STEM.ext` or `STEM.<more>.ext` (SRT, WebVTT,
    /// ASS): not those Capforge wrote (its captions, files it re-timed before), nor those named
    /// after another input of the folder whose name is longer (talk.part2.en.srt is not talk's).
    public static func pairs(for inputs: [BatchInput]) -> [Pair] {
        var listings: [URL: [String]] = [:]
        let stems = Dictionary(grouping: inputs) { $0.url.deletingLastPathComponent().standardizedFileURL }
            .mapValues { $0.map { $0.url.deletingPathExtension().lastPathComponent } }
        return inputs.map { input in
            let folder = input.url.deletingLastPathComponent().standardizedFileURL
            if listings[folder] == nil { listings[folder] = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] }
            let stem = input.url.deletingPathExtension().lastPathComponent
            let longer = (stems[folder] ?? []).filter { $0.count > stem.count && $0.hasPrefix(stem + ".") }
            let names = listings[folder]!.filter { name in
                let url = URL(fileURLWithPath: name)
                guard SubtitleFormats.reading(fileExtension: url.pathExtension) != nil, name.hasPrefix(stem + "."),
                      !url.deletingPathExtension().pathExtension.lowercased().hasSuffix("synced"),
                      !longer.contains(where: { name.hasPrefix($0 + ".") }) else { return false }
                return !OutputLedger.capforgeWrote(folder.appendingPathComponent(name))
            }
            return Pair(input: input, subtitles: names.sorted().map { folder.appendingPathComponent($0) })
        }
    }

    /// Where a subtitle file's re-timed copy goes: `talk.fr.synced.srt` beside `talk.fr.srt`.
    public static func output(for subtitles: URL) -> URL {
        subtitles.deletingPathExtension().appendingPathExtension("synced").appendingPathExtension(subtitles.pathExtension)
    }

    /// The speech's language for a video: as asked, else the one its subtitle files' names all
    /// say (talk.fr.srt), else left to the audio's tag and detection.
    static func language(of pair: Pair, asked: Language?) -> Language? {
        if let asked { return asked }
        let named = Set(pair.subtitles.map { Language($0.deletingPathExtension().pathExtension) })
        return named.count == 1 ? named.first! : nil
    }

    /// Each pair's files re-timed (those whose copy is newer than both, and Capforge's, skipped
    /// unless `force`); one that fails never stops the others. Throws `Cancelled` when interrupted.
    public func run(_ pairs: [Pair], language asked: Language?, force: Bool, overwrite: Bool, cancellation: Cancellation,
                    progress: (BatchInput, String) -> Void, finished: (Outcome) -> Void) throws -> [Outcome] {
        var outcomes: [Outcome] = []
        func record(_ outcome: Outcome) {
            outcomes.append(outcome)
            finished(outcome)
        }
        let inputs = Set(pairs.compactMap { FileID(path: $0.input.url.path) })
        for pair in pairs where !pair.subtitles.isEmpty {
            var requests: [SubtitleSyncJob.Request] = []
            for subtitles in pair.subtitles {
                let output = Self.output(for: subtitles)
                if !force, Self.isCurrent(output, sources: [pair.input.url, subtitles]) {
                    record(Outcome(input: pair.input, subtitles: subtitles, output: output, status: .skipped, report: nil, error: nil))
                } else {
                    requests.append(SubtitleSyncJob.Request(subtitles: subtitles, output: output))
                }
            }
            guard !requests.isEmpty else { continue }
            let policy = OutputPolicy(protectedFiles: inputs.union(pair.subtitles.compactMap { FileID(path: $0.path) }),
                                      ledgers: OutputLedger.lookup(for: requests[0].output), overwrite: overwrite, kind: .captions)
            let results: [Result<SyncReport, Error>]
            do {
                results = try job.run(video: pair.input.url, requests: requests, language: Self.language(of: pair, asked: asked), policy: policy,
                                      cancellation: cancellation) { progress(pair.input, $0) }
            } catch let error where error is Cancelled || cancellation.isCancelled {
                throw Cancelled()
            } catch {
                results = requests.map { _ in .failure(error) }
            }
            for (request, result) in zip(requests, results) {
                switch result {
                case .success(let report):
                    record(Outcome(input: pair.input, subtitles: request.subtitles, output: request.output, status: .done, report: report, error: nil))
                case .failure(let error):
                    record(Outcome(input: pair.input, subtitles: request.subtitles, output: request.output, status: .failed, report: nil, error: "\(error)"))
                }
            }
        }
        return outcomes
    }

    /// The review page's entries: a video a section, its first re-timed file's cues on the player
    /// and timeline, each file's map (where it starts, and each split) marked there, and what
    /// each file warned of.
    public static func reviewResults(_ outcomes: [Outcome]) -> [FileResult] {
        let byInput = Dictionary(grouping: outcomes) { $0.input.url }
        return byInput.values.map { files -> FileResult in
            let input = files[0].input
            var result = FileResult(relativePath: input.relativePath, path: input.url.path, status: files.contains { $0.status != .failed } ? .done : .failed)
            let probe = try? MediaProbe(path: input.url.path)
            result.duration = probe?.duration
            result.hasVideo = probe.map { $0.video != nil }
            var marks: [TimelineMark] = []
            for file in files {
                let name = file.subtitles.lastPathComponent
                switch file.status {
                case .failed: result.warnings.append("\(name): failed: \(file.error ?? "")")
                case .skipped: result.warnings.append("\(name): current, not redone (\(file.output.lastPathComponent))")
                case .done:
                    let report = file.report!
                    result.outputs.append(file.output.path)
                    result.language = result.language ?? report.language
                    result.warnings += report.warnings.map { "\(name): \($0)" }
                    let map = report.result.map
                    for (index, segment) in map.segments.enumerated() {
                        let at = Double(map.map(index == 0 ? 0 : segment.from, segment: index)) / 1000
                        let text = index == 0 ? "\(name): map \(map.description)" : String(format: "%@: the offset becomes %+.3f s here (a stretch cut or added)", name, Double(segment.offset) / 1000)
                        marks.append(TimelineMark(start: max(0, at), end: max(0, at), kind: .syncMap, text: text))
                    }
                }
            }
            if let shown = files.first(where: { $0.status != .failed }), let document = try? SubtitleReader.read(fileAt: shown.output) {
                result.cueMarks = document.cues.map { cue in
                    FileResult.CueMark(start: Double(cue.start) / 1000, end: Double(cue.end) / 1000, tier: nil, score: nil,
                                       lines: cue.lines.map { [MarkedText(text: $0, marked: false)] })
                }
                result.cues = document.cues.count
            }
            result.marks = marks
            return result
        }.sorted { $0.relativePath < $1.relativePath }
    }

    /// A copy Capforge wrote after its video and subtitles last changed.
    static func isCurrent(_ output: URL, sources: [URL]) -> Bool {
        guard OutputLedger.capforgeWrote(output), let written = modified(output) else { return false }
        return sources.allSatisfy { source in modified(source).map { $0 <= written } ?? false }
    }

    private static func modified(_ url: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    }
}
