import CapforgeCore
import Foundation

/// A `caption` or `export` run: the paths scanned and sharded, the review page's place checked
/// before anything is written, then every file captioned and the run's report. The command
/// decodes its options, loads the engines and shows what this gives.
public struct CaptionRun: Sendable {
    public let inputs: [BatchInput]
    /// What the scan could not look at: each fails like a file, in the summary and the report.
    public let problems: [ScanProblem]
    /// Files left out by extension, by extension.
    public let skipped: [String: Int]
    public let layout: OutputLayout

    public init(paths: [String], alsoExtensions: Set<String>, shard: Shard?, layout: OutputLayout, transcript: TranscriptChoice?) throws(CaptionRunError) {
        let (found, problems, skipped) = InputScanner.scan(paths, alsoExtensions: alsoExtensions)
        if case .file(let path) = transcript, found.count > 1 { throw .transcriptForManyInputs(path: path, inputs: found.count) }
        inputs = found.filter { shard?.contains($0.relativePath) ?? true }
        self.problems = problems
        self.skipped = skipped
        self.layout = layout
    }

    /// The review page may not take the place of an input, of any output this run may write
    /// (whatever the spelling or link), or of Capforge's own state.
    public func checkReviewPage(_ page: URL) throws(CaptionRunError) {
        let target = FileID(path: page.path)
        if let input = inputs.first(where: { target != nil && FileID(path: $0.url.path) == target }) {
            throw .reviewPage(page, reason: "it is the input \(Format.terminalSafe(input.url.path))")
        }
        if let input = inputs.first(where: { layout.mayWrite(page, for: $0) }) {
            let resolved = OutputPolicy.resolvedPath(page)
            let place = resolved.lastPathComponent == page.lastPathComponent ? "there" : "at \(Format.terminalSafe(resolved.path)), where it leads"
            throw .reviewPage(page, reason: "this run writes the outputs of \(Format.terminalSafe(input.relativePath)) \(place)")
        }
        if OutputPolicy.resolvedPath(page).pathComponents.contains(".capforge") {
            throw .reviewPage(page, reason: "it is inside Capforge's state folder (.capforge)")
        }
    }

    /// How the review page at `page` is written, checked now: what would stop it (a folder, a
    /// file Capforge did not write) is said before the run, not after it.
    public func reviewPagePolicy(_ page: URL, overwrite: Bool) throws -> OutputPolicy {
        let policy = OutputPolicy.named(page, overwrite: overwrite).writing(.report).protecting(inputs.map(\.url.path))
        _ = try policy.destination(for: page)
        return policy
    }

    /// Captions every input with `runner`; `warnings`: what limits the run, said in the report too.
    public func run(_ runner: BatchRunner, warnings: [String], cancellation: Cancellation, events: sending @escaping (BatchEvent) -> Void) -> RunReport {
        let (processed, interrupted, seconds) = runner.run(inputs, cancellation: cancellation, emit: events)
        let finished = Set(processed.map(\.path))
        return RunReport(results: processed + problems.map(\.failedResult), interrupted: interrupted, seconds: seconds,
                         unfinished: inputs.filter { !finished.contains($0.url.path) }.map(\.relativePath),
                         warnings: warnings + [Summary.skippedNote(skipped)].compactMap { $0 })
    }

    public func writeReviewPage(_ report: RunReport, to page: URL, policy: OutputPolicy) throws {
        try AtomicFile.write(HTMLReport.render(report.results, warnings: report.warnings, folder: page.standardizedFileURL.deletingLastPathComponent()),
                             to: page, policy: policy)
    }
}

/// How a caption run ended.
public struct RunReport: Sendable {
    public var results: [FileResult]
    public var interrupted: Bool
    public var seconds: Double
    /// Inputs an interruption left uncaptioned, by relative path.
    public var unfinished: [String]
    /// What limited the run, for the summary and the report.
    public var warnings: [String]

    public var failed: Bool { results.contains { $0.status == .failed } }
}

/// What a caption run refuses before it starts.
public enum CaptionRunError: Error, Equatable, CustomStringConvertible {
    case transcriptForManyInputs(path: String, inputs: Int)
    case reviewPage(URL, reason: String)

    public var description: String {
        switch self {
        case .transcriptForManyInputs(_, let inputs):
            return "a transcript is one recording's, and \(inputs) inputs were found"
        case .reviewPage(let page, let reason):
            return "the review page cannot be written at \(Format.terminalSafe(page.relativePath)): \(reason)"
        }
    }
}
