import CapforgeCore
import Foundation

/// A self-contained HTML page: the summary table and, per file, a timeline of speech chunks
/// and cues coloured by tier and confidence. People would rather look than read.
public enum HTMLReport {
    /// `warnings`: what limited the whole run (a missing engine library, a broken model), shown above the table.
    public static func render(_ results: [FileResult], warnings: [String] = [], generated: Date = Date()) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Capforge report</title>
            <style>
            body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
            table{border-collapse:collapse;margin-bottom:2em}td,th{padding:4px 10px;border-bottom:1px solid #ddd;text-align:left}
            .failed{color:#b00020}.basic{color:#a15c00}
            .timeline{position:relative;height:34px;background:#f3f3f3;border-radius:4px;margin:4px 0 18px}
            .chunk{position:absolute;top:0;height:10px;opacity:.8}
            .cue{position:absolute;top:14px;height:18px;border-radius:2px}
            .legend span{display:inline-block;margin-right:14px}.sw{width:12px;height:12px;display:inline-block;vertical-align:middle;margin-right:4px}
            </style></head><body>
            <h1>Capforge report</h1>
            <p>Generated \(escape(ISO8601DateFormatter().string(from: generated))).</p>
            \(warnings.map { "<p class=\"basic\">warning: \(escape($0))</p>" }.joined(separator: "\n"))
            <table><tr><th>file</th><th>duration</th><th>language</th><th>tier</th><th>model</th><th>words</th><th>low conf.</th><th>cues</th><th>rule breaks</th><th>time</th><th>status</th></tr>

            """
        for r in results {
            let tierClass = r.tier == .basic || r.tier == .mixed ? " class=\"basic\"" : ""
            let warnings = r.warnings.map { "<br><small class=\"basic\">warning: \(escape($0))</small>" }.joined()
            let status = r.status == .failed ? "<span class=\"failed\">failed: \(escape(r.error ?? ""))</span>" : r.status.rawValue + warnings
            html += "<tr><td>\(escape(r.relativePath))</td><td>\(r.duration.map(Format.duration) ?? "-")</td><td>\(escape(r.languageLabel))</td>"
                + "<td\(tierClass)>\(escape(r.tierLabel))</td><td>\(escape(r.modelLabel))</td><td>\(r.words.map(String.init) ?? "-")</td>"
                + "<td>\(Format.percent(r.lowConfidenceShare))</td><td>\(r.cues.map(String.init) ?? "-")</td>"
                + "<td>\(r.violations.map(String.init) ?? "-")</td><td>\(Format.seconds(r.seconds))</td><td>\(status)</td></tr>\n"
        }
        html += "</table>\n<h2>Timelines</h2>\n<p class=\"legend\">"
            + "<span><i class=\"sw\" style=\"background:#2e7d32\"></i>modern cue</span>"
            + "<span><i class=\"sw\" style=\"background:#ef6c00\"></i>basic cue</span>"
            + "<span><i class=\"sw\" style=\"background:#c62828\"></i>failed chunk</span>"
            + "<span><i class=\"sw\" style=\"background:#90a4ae\"></i>recognised speech chunk</span>"
            + " (cue opacity: confidence)</p>\n"
        for r in results where r.duration != nil && r.status != .failed {
            html += "<h3>\(escape(r.relativePath)) <small>\(escape(r.tierLabel))</small></h3>\n" + timeline(r)
        }
        return html + "</body></html>\n"
    }

    static func timeline(_ r: FileResult) -> String {
        let total = max(r.duration ?? 1, 0.001)
        func span(_ start: Double, _ end: Double) -> String {
            String(format: "left:%.3f%%;width:%.3f%%", 100 * start / total, max(0.15, 100 * (end - start) / total))
        }
        var parts = ["<div class=\"timeline\" title=\"\(Format.duration(total))\">"]
        for chunk in r.chunks {
            let color = chunk.outcome == .failed ? "#c62828" : "#90a4ae"
            parts.append("<div class=\"chunk\" style=\"\(span(chunk.start, chunk.end));background:\(color)\" title=\"\(chunk.outcome.rawValue) \(chunk.tier?.rawValue ?? "")\"></div>")
        }
        for cue in r.cueMarks {
            let color = cue.tier == .basic ? "#ef6c00" : "#2e7d32"
            let opacity = 0.35 + 0.65 * min(1, max(0, cue.score ?? 1))
            parts.append(String(format: "<div class=\"cue\" style=\"%@;background:%@;opacity:%.2f\" title=\"%.1f–%.1f s\"></div>",
                                span(cue.start, cue.end), color, opacity, cue.start, cue.end))
        }
        return parts.joined(separator: "") + "</div>\n"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
