import Arguments
import Batch
import CapforgeCore
import Foundation
import Media

struct ProbeOptions: CommandOptions {
    var json = false
    var shots = false
    var verbose = false
}

let probeCommand = Subcommand(
    "probe", summary: "Show a media file's container, duration, start offset, audio, video and subtitle streams.", usage: "FILE... [--json] [--shots]",
    options: OptionTable(initial: ProbeOptions(), [
        .flag("json", \.json, help: "print JSON instead of text"),
        .flag("shots", \.shots, help: "also find the shot changes (decodes the whole video, as ffmpeg's scdet filter at threshold 10)"),
        .flag("verbose", short: "v", \.verbose, help: "show library warnings"),
    ]),
    positionals: 1...Int.max
) { options, paths in
    var failed = false
    var probes: [MediaProbe] = []
    for path in paths {
        do {
            let probe = try MediaProbe(path: path)
            probes.append(probe)
            if !options.json { printLine(TerminalText(lines: describe(probe))) }
            if options.shots {
                let shots = try ShotChangeDetector.detect(path: path)
                if options.json {
                    Terminal.standardOutput.json(try jsonString(shots))
                } else {
                    printLine("  shot changes (\(shots.changes.count) in \(shots.frames) frames): \(shots.changes.map { String(format: "%.3f", $0) }.joined(separator: ", "))")
                }
            }
        } catch {
            printError("capforge probe: \(error)")
            failed = true
        }
    }
    if options.json {
        Terminal.standardOutput.json(try probes.count == 1 && paths.count == 1 ? jsonString(probes[0]) : jsonString(probes))
    }
    return failed ? ExitCode.failure : ExitCode.success
}

private func describe(_ probe: MediaProbe) -> String {
    var lines = [probe.path]
    let duration = probe.duration.map { String(format: "%.3f s", $0) } ?? "unknown"
    lines.append("  container: \(probe.container), duration: \(duration), start offset: \(String(format: "%.3f s", probe.startTime))")
    if probe.durationClaim.isContradicted { lines.append("  warning: \(probe.durationClaim)") }
    if let v = probe.video {
        let fps = v.frameRate.map { String(format: "%.3f fps", $0) } ?? "unknown rate"
        lines.append("  video #\(v.index): \(v.codec) \(v.width)x\(v.height), \(fps), \(v.rotationDescription)")
    } else {
        lines.append("  video: none")
    }
    if probe.audioStreams.isEmpty { lines.append("  audio: none") }
    for a in probe.audioStreams {
        var parts = ["\(a.codec)", "\(a.channels) ch", "\(a.sampleRate) Hz", "language \(a.languageTag ?? "untagged")"]
        if let title = a.title { parts.append("\"\(title)\"") }
        if a.isDefault { parts.append("default") }
        lines.append("  audio #\(a.index): " + parts.joined(separator: ", "))
    }
    for s in probe.subtitleStreams {
        var parts = ["\(s.codec)", s.isText ? "text" : "pictures", "language \(s.languageTag ?? "untagged")"]
        if let title = s.title { parts.append("\"\(title)\"") }
        if s.isDefault { parts.append("default") }
        if s.isForced { parts.append("forced") }
        lines.append("  subtitles #\(s.index): " + parts.joined(separator: ", "))
    }
    // The path, titles and tags are the file's: each line shown escaped whole.
    return lines.map(Format.terminalSafe).joined(separator: "\n")
}
