import CapforgeCore
import Foundation

/// The end-of-run table: one row per file, then totals.
public enum Summary {
    public static func table(_ results: [FileResult], interrupted: Bool, seconds: Double) -> String {
        let header = ["file", "duration", "lang", "tier", "model", "words", "low conf.", "cues", "rule breaks", "time", "status"]
        let rows = results.map { r -> [String] in
            [Format.shortened(Format.terminalSafe(r.relativePath), to: 60), r.duration.map(Format.duration) ?? "-", r.language?.code ?? "-", r.tierLabel, r.modelLabel,
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
        var lines = [render(header), widths.map { String(repeating: "-", count: min($0, 60)) }.joined(separator: "  ")]
        lines += rows.map(render)
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
        if interrupted { totals += "; interrupted: rerun to resume" }
        lines.append(totals)
        return lines.joined(separator: "\n")
    }
}
