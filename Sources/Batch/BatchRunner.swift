import CapforgeCore
import Foundation
import Media

/// Runs a batch: one bad file never stops it, a current file is skipped, and an interruption
/// stops cleanly after abandoning the file in progress (its journal keeps finished chunks).
public struct BatchRunner {
    public let pipeline: CaptionPipeline
    public var force = false

    public init(pipeline: CaptionPipeline, force: Bool = false) {
        self.pipeline = pipeline
        self.force = force
    }

    public func run(_ inputs: [BatchInput], cancellation: Cancellation, emit: (BatchEvent) -> Void) -> (results: [FileResult], interrupted: Bool) {
        let began = Date()
        let durations = inputs.map { (try? MediaProbe(path: $0.url.path))?.duration }
        emit(.batchStarted(files: inputs.count, audioSeconds: durations.compactMap { $0 }.reduce(0, +)))
        var results: [FileResult] = []
        var interrupted = false
        for (index, input) in inputs.enumerated() {
            if cancellation.isCancelled { interrupted = true; break }
            emit(.fileStarted(index: index, total: inputs.count, input: input, duration: durations[index]))
            let result: FileResult
            if !force, var previous = pipeline.currentResult(input) {
                previous.status = .skipped
                previous.seconds = 0
                result = previous
            } else {
                do {
                    result = try pipeline.process(input, cancellation: cancellation, emit: emit)
                } catch {
                    interrupted = true
                    break
                }
            }
            results.append(result)
            if result.status == .done {
                let state = pipeline.layout.stateFolder(for: input)
                var history = SpeedHistory.load(stateFolder: state)
                history.record(result)
                // Advisory only: failing to save speed history must not fail the batch.
                try? history.save(stateFolder: state)
            }
            emit(.fileFinished(index: index, result: result))
        }
        emit(.batchFinished(results: results, interrupted: interrupted, seconds: Date().timeIntervalSince(began)))
        return (results, interrupted)
    }
}
