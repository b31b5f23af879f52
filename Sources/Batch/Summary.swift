import CapforgeCore
import Foundation

/// The end-of-run table: one row per file, then totals.
public enum Summary {
    /// `seconds`: the batch's wall time. `unfinished`: the inputs an interruption left, by
    /// relative path (a file in progress resumes from its journal on the next run).
    public static func table(_ results: [FileResult], interrupted: Bool, seconds: Double, unfinished: [String] = []) -> String {
        let header = ["file", "duration", "lang", "tier", "model", "words", "low conf.", "cues", "rule breaks", "time", "status"]
        let rows = results.map { r -> [String] in
            [Format.shortened(Format.terminalSafe(r.relativePath), to: 60), r.duration.map(ClockTime.seconds) ?? "-", r.languageLabel, r.tierLabel, Format.terminalSafe(r.modelLabel),
             r.words.map(String.init) ?? "-", Format.percent(r.lowConfidenceShare), r.cues.map(String.init) ?? "-", r.violations.map(String.init) ?? "-",
             r.status == .skipped ? "-" : Format.seconds(r.seconds),
             r.status == .failed ? "FAILED: \(Format.terminalSafe(r.error ?? ""))" : r.status.rawValue + (r.warnings.isEmpty ? "" : " (\(r.warnings.count) warning(s))")]
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func render(_ cells: [String]) -> String {
            // The status column is last and may be long: it is not padded.
            zip(cells, widths).enumerated().map { i, pair in
                i == cells.count - 1 ? pair.0 : pair.0.padding(toLength: pair.1, withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        var lines: [String] = []
        if rows.isEmpty {
            lines.append(interrupted ? "no file finished before the interruption" : "no file")
        } else {
            lines = [render(header), widths.map { String(repeating: "-", count: min($0, 60)) }.joined(separator: "  ")] + rows.map(render)
        }
        let warned = results.filter { !$0.warnings.isEmpty && $0.status != .failed }
        if !warned.isEmpty {
            lines.append("")
            lines += warned.flatMap { r in r.warnings.map { Format.terminalSafe("warning: \(r.relativePath): \($0)") } }
        }
        let done = results.filter { $0.status == .done }.count
        let skipped = results.filter { $0.status == .skipped }.count
        let failed = results.filter { $0.status == .failed }.count
        let basic = results.filter { $0.tier == .basic || $0.tier == .mixed }.count
        lines.append("")
        var totals = "\(done) captioned, \(skipped) skipped (current), \(failed) failed in \(Format.seconds(seconds))"
        if basic > 0 { totals += "; \(basic) file(s) with basic-quality captions" }
        if interrupted {
            totals += "; interrupted: rerun the same command to resume"
            if !unfinished.isEmpty {
                let shown = unfinished.prefix(10).map { Format.shortened(Format.terminalSafe($0), to: 60) }.joined(separator: ", ")
                lines.append("not finished: \(unfinished.count) file(s): \(shown)\(unfinished.count > 10 ? ", …" : "")"
                             + " (the one in progress keeps its finished chunks)")
            }
        }
        lines.append(totals)
        return lines.joined(separator: "\n")
    }

    /// The warning for files a folder scan left out for their extension, or nil for none.
    public static func skippedNote(_ skipped: [String: Int]) -> String? {
        let total = skipped.values.reduce(0, +)
        guard total > 0 else { return nil }
        let byCount = skipped.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
        let named = byCount.prefix(8).map { "\($0.key.isEmpty ? "no extension" : "." + Format.terminalSafe($0.key)) \($0.value)" }.joined(separator: ", ")
        let includable = byCount.map(\.key).filter { !$0.isEmpty }.prefix(8).map(Format.terminalSafe)
        return "\(total) file(s) in the folders were not captioned, their extension is not one Capforge scans for (\(named)\(byCount.count > 8 ? ", …" : ""))"
            + (includable.isEmpty ? "; name a file to caption it" : "; name a file to caption it, or add --include-ext \(includable.joined(separator: ","))")
    }
}
