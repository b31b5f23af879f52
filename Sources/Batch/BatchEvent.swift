import CapforgeCore
import Speech

/// What a batch run reports as it goes; reporters render these for a TTY, a log or a script.
public enum BatchEvent: Sendable {
    public enum Stage: String, Sendable, Codable {
        case probe, extract, language, transcribe, shots, captions, write, burn, mux
    }

    case batchStarted(files: Int, audioSeconds: Double)
    case fileStarted(index: Int, total: Int, input: BatchInput, duration: Double?)
    case stage(input: BatchInput, stage: Stage, fraction: Double)
    case tierResolved(input: BatchInput, source: LanguageSource, plan: TierPlan, model: String?)
    case chunk(input: BatchInput, progress: ChunkProgress)
    case fileFinished(index: Int, result: FileResult)
    case batchFinished(results: [FileResult], interrupted: Bool, seconds: Double)
}
