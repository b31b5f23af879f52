import CapforgeCore
import Foundation
import Media
import Speech

/// `--dry-run`: each file with its resolved language and tier and an estimated time, without
/// transcribing anything.
public enum DryRun {
    /// `force`: current files are redone, so they count as work.
    public static func listing(_ inputs: [BatchInput], pipeline: CaptionPipeline, force: Bool = false) -> String {
        var lines: [String] = []
        var total = 0.0
        var anyMeasured = false
        for input in inputs {
            guard let probe = try? MediaProbe(path: input.url.path) else {
                lines.append("\(Format.terminalSafe(input.relativePath)): cannot be read")
                continue
            }
            let requested = pipeline.knownLanguage(probe).language
            let tier: String
            let language: String
            var plan: TierPlan?
            if probe.audioStreams.isEmpty {
                (language, tier) = ("-", "no audio")
            } else if let requested {
                do {
                    let resolved = try pipeline.resolver.resolve(requested, preference: pipeline.settings.tier)
                    plan = resolved
                    (language, tier) = pipeline.translationLabel(resolved)
                        ?? (resolved.language.code, resolved.displayTier + (pipeline.modelLabel(resolved).map { " (\($0))" } ?? ""))
                } catch {
                    (language, tier) = (requested.code, "unsupported")
                }
            } else {
                (language, tier) = ("auto", "decided after detection")
            }
            let history = SpeedHistory.load(stateFolder: pipeline.layout.stateFolder(for: input))
            let (factor, measured) = history.factor(plan?.mode ?? .modern, crossChecked: plan.map(pipeline.isCrossChecked) ?? false)
            anyMeasured = anyMeasured || measured
            // A translation with the original captions too is heard twice.
            let passes = plan.map { pipeline.translationLabel($0) != nil && pipeline.settings.alsoOriginal == true } == true ? 2.0 : 1.0
            let estimate = (probe.duration ?? 0) * factor * passes
            let skipped = !force && pipeline.currentResult(input) != nil
            // A file that would be skipped costs nothing; its estimate is shown all the same.
            if !skipped { total += estimate }
            let current = skipped ? "  (current: would be skipped)" : pipeline.currentResult(input) != nil ? "  (current, redone: --force)" : ""
            lines.append("\(Format.terminalSafe(input.relativePath)): \(probe.duration.map(Format.duration) ?? "?"), language \(language), tier \(tier), about \(Format.seconds(estimate))\(current)")
        }
        lines.append("\(inputs.count) file(s), estimated \(Format.duration(total)) of work (\(anyMeasured ? "from this machine's history" : "default speeds; no history yet"))")
        return lines.joined(separator: "\n")
    }
}
