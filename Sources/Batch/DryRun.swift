import CapforgeCore
import Foundation
import Media
import Speech

/// `--dry-run`: each file with its resolved language and tier and an estimated time, without
/// transcribing anything.
public enum DryRun {
    public static func listing(_ inputs: [BatchInput], pipeline: CaptionPipeline) -> String {
        var lines: [String] = []
        var total = 0.0
        var anyMeasured = false
        for input in inputs {
            guard let probe = try? MediaProbe(path: input.url.path) else {
                lines.append("\(Format.terminalSafe(input.relativePath)): cannot be read")
                continue
            }
            let tag = probe.audioStreams.first(where: \.isDefault)?.language ?? probe.audioStreams.first?.language
            let requested = pipeline.settings.language == "auto" ? tag : pipeline.settings.language
            let tier: String
            let language: String
            if probe.audioStreams.isEmpty {
                (language, tier) = ("-", "no audio")
            } else if let requested {
                do {
                    let plan = try pipeline.resolver.resolve(requested, preference: pipeline.settings.tier)
                    (language, tier) = (plan.language, plan.displayTier)
                } catch {
                    (language, tier) = (requested, "unsupported")
                }
            } else {
                (language, tier) = ("auto", "decided after detection")
            }
            let history = SpeedHistory.load(stateFolder: pipeline.layout.stateFolder(for: input))
            let (factor, measured) = history.factor(["modern", "basic", "arbitrate"].contains(tier) ? tier : "modern")
            anyMeasured = anyMeasured || measured
            let estimate = (probe.duration ?? 0) * factor
            total += estimate
            let current = pipeline.currentResult(input) != nil ? "  (current: would be skipped)" : ""
            lines.append("\(Format.terminalSafe(input.relativePath)): \(probe.duration.map(Format.duration) ?? "?"), language \(language), tier \(tier), about \(Format.seconds(estimate))\(current)")
        }
        lines.append("\(inputs.count) file(s), estimated \(Format.duration(total)) of work (\(anyMeasured ? "from this machine's history" : "default speeds; no history yet"))")
        return lines.joined(separator: "\n")
    }
}
