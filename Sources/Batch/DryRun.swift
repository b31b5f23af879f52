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
        // Without history, each model is timed once on the first of its files.
        var probes: [String: SpeedProbe?] = [:]
        var probed: [String] = []
        let history = SpeedHistory.load(stateFolder: .user())
        for input in inputs {
            guard let probe = try? MediaProbe(path: input.url.path) else {
                lines.append("\(Format.terminalSafe(input.relativePath)): cannot be read")
                continue
            }
            let requested = pipeline.knownLanguage(probe).language
            let tier: String
            let language: String
            var plan: TierPlan?
            // The model whose language vote an untagged file pays for.
            var voter: String?
            // A file without audio, with a sample rate extraction refuses, or in a language nothing
            // here covers, fails at once.
            var failsAtOnce = probe.audioStreams.isEmpty
            if probe.audioStreams.isEmpty {
                (language, tier) = ("-", "no audio")
            } else if let stream = try? probe.audioStream(pipeline.knownLanguage(probe).stream), stream.hasImplausibleRate {
                (language, tier) = ("-", "refused: its audio claims \(stream.sampleRate) Hz")
                failsAtOnce = true
            } else if let requested {
                do {
                    let resolved = try pipeline.resolver.resolve(requested, preference: pipeline.settings.tier)
                    plan = resolved
                    (language, tier) = pipeline.translationLabel(resolved)
                        ?? (resolved.language.code, resolved.displayTier + (pipeline.modelLabel(resolved).map { " (\($0))" } ?? ""))
                } catch {
                    (language, tier) = (requested.code, "unsupported")
                    failsAtOnce = true
                }
            } else {
                // Priced as what the run falls back to, plus the language vote: most files have
                // untagged audio, and pricing them at default speeds was ten times low.
                let untagged = pipeline.transcription.untaggedLanguagePlan(preference: pipeline.settings.tier)
                plan = untagged.plan
                voter = untagged.voter?.model
                (language, tier) = ("auto", untagged.description + (untagged.plan.flatMap(pipeline.modelLabel).map { " (\($0))" } ?? ""))
            }
            // What there is to hear: audio that starts hours in is not hours of work.
            let audioSeconds = probe.audioSeconds(pipeline.knownLanguage(probe).stream) ?? 0
            var (single, measured) = history.estimate(plan?.mode ?? .modern, crossChecked: plan.map(pipeline.isCrossChecked) ?? false,
                                                      variant: SpeedHistory.variant(of: pipeline.settings),
                                                      model: plan.flatMap(pipeline.modelName), duration: audioSeconds)
            anyMeasured = anyMeasured || measured
            if !measured, let plan, plan.mode != .arbitrate, !pipeline.isCrossChecked(plan), let model = pipeline.modelName(plan) {
                // A model timed with and without the language vote are two probes.
                let name = model + (voter.map { " with \($0)'s language vote" } ?? "")
                if probes[name] == nil {
                    probes[name] = try? SpeedProbe.measure(pipeline.transcription, plan: plan, file: input.url,
                                                           selection: pipeline.knownLanguage(probe).stream, detecting: voter != nil)
                    if let timed = probes[name] ?? nil {
                        total += timed.load
                        probed.append(name)
                    }
                }
                if let timed = probes[name] ?? nil {
                    single = timed.estimate(duration: audioSeconds, basic: plan.mode == .basic, options: pipeline.settings.transcription)
                }
            }
            // A translation with the original captions too is heard twice (its history has both).
            let passes = !measured && plan.map { pipeline.translationLabel($0) != nil && pipeline.settings.alsoOriginal } == true ? 2.0 : 1.0
            let estimate = failsAtOnce ? 0 : single * passes
            let skipped = !force && pipeline.currentResult(input) != nil
            // A file that would be skipped costs nothing; its estimate is shown all the same.
            if !skipped { total += estimate }
            let current = skipped ? "  (current: would be skipped)" : pipeline.currentResult(input) != nil ? "  (current, redone: --force)" : ""
            // Names (the file's, a model's) shown escaped: the line stays one line.
            lines.append(Format.terminalSafe("\(input.relativePath): \(probe.duration.map(ClockTime.seconds) ?? "?"), language \(language), tier \(tier), about \(Format.seconds(estimate))\(current)"))
            if let choice = pipeline.settings.transcript { lines.append("  " + transcriptLine(choice, for: input, seconds: probe.duration)) }
            if probe.durationClaim.isContradicted { lines.append("  warning: \(probe.durationClaim); the estimate is a guess from what the file holds, until its audio is decoded") }
        }
        let basis = anyMeasured ? "from this machine's history"
            : probed.isEmpty ? "default speeds; no history yet"
            : "no history yet: \(probed.joined(separator: ", ")) timed on 30 s of the first of its files"
        lines.append("\(inputs.count) file(s), estimated \(ClockTime.seconds(total)) of work (\(basis))")
        return lines.joined(separator: "\n")
    }

    /// Which transcript a file's captions will hold, or why none.
    static func transcriptLine(_ choice: TranscriptChoice, for input: BatchInput, seconds: Double?) -> String {
        let name = Format.terminalSafe(GivenTranscript.location(choice, for: input).path)
        do {
            guard let given = try GivenTranscript.read(choice, for: input, seconds: seconds) else { return "no \(name): captioned from what is heard" }
            return "transcript \(name): its \(given.text.words.count) words, timed from the audio"
        } catch {
            return "transcript \(name) cannot be used, so the file will fail: \(Format.terminalSafe("\(error)"))"
        }
    }
}
