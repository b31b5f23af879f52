import CapforgeCore
import Foundation
import Media
import Synchronization

/// Runs a batch: one bad file never stops it, a current file is skipped, and an interruption
/// stops cleanly after abandoning the file in progress (its journal keeps finished chunks).
///
/// With `jobs` > 1, a file's burn-in runs in the background while the next file is probed and
/// its audio extracted; recognition of that next file waits for the burn-in, since on two cores
/// video encoding and Whisper inference must not overlap.
public struct BatchRunner {
    public let pipeline: CaptionPipeline
    public var force = false
    public var jobs = 1
    /// Replace existing regular files Capforge did not write (`--overwrite`).
    public var overwrite = false

    public init(pipeline: CaptionPipeline, force: Bool = false, jobs: Int = 1, overwrite: Bool = false) {
        self.pipeline = pipeline
        self.force = force
        self.jobs = max(1, jobs)
        self.overwrite = overwrite
    }

    public func run(_ inputs: [BatchInput], cancellation: Cancellation, emit: sending @escaping (BatchEvent) -> Void) -> (results: [FileResult], interrupted: Bool, seconds: Double) {
        let began = Date()
        let state = RunState(count: inputs.count, emit: emit)
        // Probed once here, for the progress total and then for the pipeline (a file that fails is
        // probed again by the pipeline, which reports why); Ctrl-C stops this first pass at once.
        let probes = inputs.map { cancellation.isCancelled ? nil : try? MediaProbe(path: $0.url.path) }
        let durations = probes.map { $0?.duration }
        state.emit(.batchStarted(files: inputs.count, audioSeconds: durations.compactMap { $0 }.reduce(0, +)))
        let background = DispatchQueue(label: "capforge.burn")
        let burning = DispatchGroup()
        // Output names drop the extension, so talk.mp4 and talk.wav (or x.mp4 under two folders
        // given with --out, or a folder reached through a link) would write the same files: the
        // first keeps the name, the others fail. Keyed by the resolved path's bytes: Swift's
        // String equality would make NFC and NFD spellings of a name one.
        var claimed: [[UInt8]: String] = [:]
        let protected = Set(inputs.compactMap { FileID(path: $0.url.path) })
        var swept = Set<URL>()
        let speedVariant = SpeedHistory.variant(of: pipeline.settings)
        let speedFolder = StateFolder.user()
        for (index, input) in inputs.enumerated() {
            if cancellation.isCancelled || state.interrupted { state.interrupted = true; break }
            state.emit(.fileStarted(index: index, total: inputs.count, input: input, duration: durations[index]))
            let outputBase = OutputPolicy.resolvedPath(pipeline.layout.folder(for: input)).appendingPathComponent(pipeline.layout.stem(for: input)).path
            if let owner = claimed[Array(outputBase.utf8)] {
                var clash = FileResult(relativePath: input.relativePath, path: input.url.path, status: .failed)
                clash.error = "its outputs would overwrite those of \(owner) (same name without the extension); rename one of them"
                state.finish(index, clash, history: nil)
                continue
            }
            claimed[Array(outputBase.utf8)] = input.relativePath
            if !force, var previous = pipeline.currentResult(input) {
                previous.status = .skipped
                previous.seconds = 0
                state.finish(index, previous, history: nil)
                continue
            }
            let folder = pipeline.layout.folder(for: input)
            if swept.insert(folder).inserted { AtomicFile.removeStaleTemporaries(in: folder) }
            let prepared: CaptionPipeline.PreparedFile
            do {
                prepared = try pipeline.prepare(input, probe: probes[index], policy: pipeline.outputPolicy(for: input, protecting: protected, overwrite: overwrite),
                                                cancellation: cancellation, beforeInference: { burning.wait() }, emit: state.emit)
            } catch {
                state.interrupted = true
                break
            }
            let finish: @Sendable () -> Void = { [pipeline] in
                do {
                    state.finish(index, try pipeline.finish(prepared, cancellation: cancellation, emit: state.emit),
                                 history: (speedFolder, speedVariant))
                } catch {
                    state.interrupted = true
                }
            }
            if jobs > 1 && prepared.burn != nil {
                burning.enter()
                background.async {
                    finish()
                    burning.leave()
                }
            } else {
                finish()
            }
        }
        burning.wait()
        let results = state.results.compactMap { $0 }
        let seconds = Date().timeIntervalSince(began)
        state.emit(.batchFinished(results: results, interrupted: state.interrupted, seconds: seconds))
        return (results, state.interrupted, seconds)
    }
}

/// What the foreground and the background burn-in share: events go out one at a time, results
/// land in input order.
private final class RunState: Sendable {
    private struct Shared {
        /// The caller's event sink, which need not be Sendable: only ever called under the lock.
        let sink: (BatchEvent) -> Void
        var results: [FileResult?]
        var interrupted = false
    }

    private let shared: Mutex<Shared>

    init(count: Int, emit: sending @escaping (BatchEvent) -> Void) {
        shared = Mutex(Shared(sink: emit, results: Array(repeating: nil, count: count)))
    }

    var results: [FileResult?] { shared.withLock { $0.results } }

    var interrupted: Bool {
        get { shared.withLock { $0.interrupted } }
        set { shared.withLock { $0.interrupted = $0.interrupted || newValue } }
    }

    func emit(_ event: BatchEvent) {
        shared.withLock { $0.sink(event) }
    }

    /// `history`: the folder whose speed history the file's time goes to, and the way it
    /// was recognised; nil for a file not recognised now.
    func finish(_ index: Int, _ result: FileResult, history speed: (stateFolder: StateFolder, variant: String)?) {
        shared.withLock {
            if let (stateFolder, variant) = speed, result.status == .done {
                var history = SpeedHistory.load(stateFolder: stateFolder)
                history.record(result, variant: variant)
                // Advisory only: failing to save speed history must not fail the batch.
                try? history.save(stateFolder: stateFolder)
            }
            $0.results[index] = result
        }
        emit(.fileFinished(index: index, result: result))
    }
}
