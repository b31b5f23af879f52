import CapforgeCore
import Captions
import Foundation

/// The review page (`--report FILE.html`): one self-contained file that works offline from
/// disk. Batch totals and the summary table, then per file the video (or audio) with its
/// captions, the cue list (click a cue to hear it; low-confidence words marked), a timeline
/// with a time axis (speech, cues by tier, low-confidence words, warnings at their moment),
/// every warning and links to every output. The table and the lists read without JavaScript;
/// the script only attaches the captions to the player and makes cues seek.
public enum HTMLReport {
    /// `warnings`: what limited the whole run (a missing engine library, a broken model).
    /// `folder`: where the page is written, so that media and outputs are linked relative to it.
    public static func render(_ results: [FileResult], warnings: [String] = [], generated: Date = Date(), folder: URL? = nil) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Capforge review</title>
            <meta name="viewport" content="width=device-width,initial-scale=1">
            <style>
            body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}
            table{border-collapse:collapse;margin-bottom:1.5em}td,th{padding:4px 10px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}
            .failed{color:#b00020}.warn{color:#8a4b00}
            .totals{display:flex;flex-wrap:wrap;gap:6px 22px;padding:0;list-style:none}.totals b{display:block;font-size:18px}
            section.file{border-top:2px solid #ccc;margin-top:2em;padding-top:.5em}
            .review{display:flex;gap:18px;align-items:flex-start;flex-wrap:wrap}
            video,audio{width:480px;max-width:100%;background:#000}
            ol.cues{flex:1;min-width:300px;max-height:360px;overflow:auto;margin:0;padding-left:3.5em}
            ol.cues li{padding:2px 4px;border-radius:3px}ol.cues li.basic{background:#fff3e0}ol.cues li.now{outline:2px solid #1565c0}
            ol.cues a.time{font-variant-numeric:tabular-nums;margin-right:.6em;color:#1565c0}
            mark{background:#ffcdd2;color:inherit}
            svg.timeline{width:100%;height:86px;display:block;margin:10px 0}
            svg.timeline text{font:10px system-ui,sans-serif;fill:#555}
            .legend span{display:inline-block;margin-right:14px}.sw{width:12px;height:12px;display:inline-block;vertical-align:middle;margin-right:4px}
            </style></head><body>
            <h1>Capforge review</h1>
            <p>Generated \(escape(ISO8601DateFormatter().string(from: generated))).</p>

            """
        html += warnings.map { "<p class=\"warn\">warning: \(shown($0))</p>\n" }.joined()
        html += totals(results)
        html += "<table><tr><th>file</th><th>duration</th><th>language</th><th>tier</th><th>model</th><th>words</th><th>low conf.</th><th>cues</th><th>rule breaks</th><th>time</th><th>status</th></tr>\n"
        for (index, r) in results.enumerated() {
            let tierClass = r.tier == .basic || r.tier == .mixed ? " class=\"warn\"" : ""
            let status = r.status == .failed ? "<span class=\"failed\">failed: \(shown(r.error ?? ""))</span>"
                : r.status.rawValue + (r.warnings.isEmpty ? "" : " (\(r.warnings.count) warning\(r.warnings.count == 1 ? "" : "s"))")
            html += "<tr><td><a href=\"#file-\(index + 1)\">\(shown(r.relativePath))</a></td><td>\(r.duration.map(ClockTime.seconds) ?? "-")</td>"
                + "<td>\(escape(r.languageLabel))</td><td\(tierClass)>\(escape(r.tierLabel))</td><td>\(escape(r.modelLabel))</td>"
                + "<td>\(r.words.map(String.init) ?? "-")</td><td>\(Format.percent(r.lowConfidenceShare))</td><td>\(r.cues.map(String.init) ?? "-")</td>"
                + "<td>\(r.violations.map(String.init) ?? "-")</td><td>\(Format.seconds(r.seconds))</td><td>\(status)</td></tr>\n"
        }
        html += "</table>\n<p class=\"legend\">"
            + "<span><i class=\"sw\" style=\"background:#cfd8dc\"></i>speech</span>"
            + "<span><i class=\"sw\" style=\"background:#2e7d32\"></i>modern cue</span>"
            + "<span><i class=\"sw\" style=\"background:#ef6c00\"></i>basic cue</span>"
            + "<span><i class=\"sw\" style=\"background:#c62828\"></i>low-confidence word, warning</span>"
            + (results.contains { ($0.marks ?? []).contains { [.notHeard, .notInTranscript].contains($0.kind) } }
                ? "<span><i class=\"sw\" style=\"background:#6a1b9a\"></i>transcript not heard</span>"
                    + "<span><i class=\"sw\" style=\"background:#1565c0\"></i>heard, not in the transcript</span>" : "")
            + (results.contains { ($0.marks ?? []).contains { $0.kind == .syncMap } }
                ? "<span><i class=\"sw\" style=\"background:#00838f\"></i>re-timing map: start, splits</span>" : "")
            + (results.contains { ($0.marks ?? []).contains { $0.kind == .music } }
                ? "<span><i class=\"sw\" style=\"background:#f9a825\"></i>music without a voice (not transcribed)</span>" : "")
            + (results.contains { !($0.shotChanges ?? []).isEmpty } ? "<span><i class=\"sw\" style=\"background:#37474f\"></i>shot change (dashed)</span>" : "")
            + " (cue opacity: confidence)</p>\n"
        for (index, r) in results.enumerated() { html += section(r, id: "file-\(index + 1)", folder: folder) }
        return html + script + "</body></html>\n"
    }

    // MARK: - Batch totals

    static func totals(_ results: [FileResult]) -> String {
        let done = results.filter { $0.status == .done }
        let media = results.compactMap(\.duration).reduce(0, +)
        let speech = results.flatMap { $0.speech ?? [] }.reduce(0) { $0 + $1.end - $1.start }
        let words = results.compactMap(\.words).reduce(0, +)
        func wordWeighted(_ share: (FileResult) -> Double?) -> Double? {
            let weighted = results.compactMap { r in share(r).flatMap { s in r.words.map { (s * Double($0), $0) } } }
            let count = weighted.reduce(0) { $0 + $1.1 }
            return count > 0 ? weighted.reduce(0) { $0 + $1.0 } / Double(count) : nil
        }
        let seconds = results.map(\.seconds).reduce(0, +)
        let items: [(String, String)] = [
            ("files", "\(results.count): \(done.count) done, \(results.filter { $0.status == .skipped }.count) skipped, \(results.filter { $0.status == .failed }.count) failed"),
            ("media", ClockTime.seconds(media)), ("speech", ClockTime.seconds(speech)), ("words", "\(words)"),
            ("basic tier", Format.percent(wordWeighted(\.basicShare))), ("low confidence", Format.percent(wordWeighted(\.lowConfidenceShare))),
            ("rule breaks", "\(results.compactMap(\.violations).reduce(0, +))"), ("time taken", Format.seconds(seconds)),
            ("real-time factor", Format.realTimeFactor(taken: seconds, media: media)),
        ]
        return "<ul class=\"totals\">" + items.map { "<li>\(escape($0.0))<b>\(escape($0.1))</b></li>" }.joined() + "</ul>\n"
    }

    // MARK: - One file

    static func section(_ r: FileResult, id: String, folder: URL?) -> String {
        let label = r.language == nil ? "" : " <small>\(escape(r.languageLabel)), \(escape(r.tierLabel))</small>"
        var html = "<section class=\"file\" id=\"\(id)\"><h2>\(shown(r.relativePath))\(label)</h2>\n"
        if !r.outputs.isEmpty {
            html += "<p>outputs: " + r.outputs.map { "<a href=\"\(escape(link(to: $0, from: folder)))\">\(shown(URL(fileURLWithPath: $0).lastPathComponent))</a>" }
                .joined(separator: " · ") + "</p>\n"
        }
        let problems = (r.error.map { ["failed: " + $0] } ?? []) + r.warnings.map { "warning: " + $0 }
        if !problems.isEmpty {
            html += "<ul class=\"warnings\">" + problems.map { "<li class=\"\($0.hasPrefix("failed") ? "failed" : "warn")\">\(shown($0))</li>" }.joined() + "</ul>\n"
        }
        guard r.status != .failed, let duration = r.duration, duration > 0 else { return html + "</section>\n" }
        let element = r.hasVideo == false ? "audio" : "video"
        let language = r.language?.code ?? "und"
        html += "<div class=\"review\"><\(element) controls preload=\"metadata\" src=\"\(escape(link(to: r.path, from: folder)))\" "
            + "data-cues=\"\(id)-cues\" data-lang=\"\(escape(language))\"></\(element)>\n"
        html += "<ol class=\"cues\" id=\"\(id)-cues\">"
        for cue in r.cueMarks {
            let text = (cue.lines ?? []).map { runs in
                runs.map { $0.marked ? "<mark>\(escape($0.text))</mark>" : escape($0.text) }.joined()
            }.joined(separator: "<br>")
            html += String(format: "<li data-start=\"%.3f\" data-end=\"%.3f\"%@><a class=\"time\" href=\"#%@\">%@</a><span class=\"text\">%@</span></li>",
                           cue.start, cue.end, cue.tier == .basic ? " class=\"basic\"" : "", id, ClockTime.tenths(cue.start), text)
        }
        html += "</ol></div>\n" + timeline(r, duration: duration) + "</section>\n"
        return html
    }

    /// An SVG strip 1000 units wide: a time axis, speech regions, cues, low-confidence words
    /// and the moments warnings are about.
    static func timeline(_ r: FileResult, duration: Double) -> String {
        func x(_ seconds: Double) -> String { String(format: "%.2f", 1000 * min(max(seconds, 0), duration) / duration) }
        func width(_ start: Double, _ end: Double) -> String { String(format: "%.2f", max(0.8, 1000 * (min(end, duration) - max(start, 0)) / duration)) }
        var parts = ["<svg class=\"timeline\" viewBox=\"0 0 1000 86\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"timeline of \(escape(ClockTime.seconds(duration)))\">"]
        for region in r.speech ?? [] {
            parts.append("<rect x=\"\(x(region.start))\" y=\"8\" width=\"\(width(region.start, region.end))\" height=\"10\" fill=\"#cfd8dc\"><title>speech \(ClockTime.seconds(region.start))–\(ClockTime.seconds(region.end))</title></rect>")
        }
        for cue in r.cueMarks {
            let opacity = 0.35 + 0.65 * min(1, max(0, cue.score ?? 1))
            let text = (cue.lines ?? []).map { $0.map(\.text).joined() }.joined(separator: " ")
            parts.append("<rect class=\"cue\" data-start=\"\(String(format: "%.3f", cue.start))\" x=\"\(x(cue.start))\" y=\"22\" width=\"\(width(cue.start, cue.end))\" height=\"18\" "
                + "fill=\"\(cue.tier == .basic ? "#ef6c00" : "#2e7d32")\" opacity=\"\(String(format: "%.2f", opacity))\"><title>\(escape(ClockTime.tenths(cue.start))) \(escape(text))</title></rect>")
            // Low-confidence words: a tick over the cue, placed by the word's share of the cue's text.
            let runs = (cue.lines ?? []).flatMap { $0 }
            let total = max(1, runs.reduce(0) { $0 + $1.text.count })
            var offset = 0
            for run in runs {
                if run.marked {
                    let at = cue.start + (cue.end - cue.start) * Double(offset) / Double(total)
                    parts.append("<rect x=\"\(x(at))\" y=\"42\" width=\"2\" height=\"6\" fill=\"#c62828\"><title>low confidence: \(escape(run.text))</title></rect>")
                }
                offset += run.text.count
            }
        }
        for mark in r.marks ?? [] {
            // A transcript's passages not heard, speech it lacks, a re-timing's map and music alone, apart from the problems.
            let colour = switch mark.kind {
            case .notHeard: "#6a1b9a"
            case .notInTranscript: "#1565c0"
            case .syncMap: "#00838f"
            case .music: "#f9a825"
            default: "#c62828"
            }
            parts.append("<rect class=\"mark \(mark.kind.rawValue)\" x=\"\(x(mark.start))\" y=\"50\" width=\"\(width(mark.start, mark.end))\" height=\"4\" fill=\"\(colour)\"></rect>"
                + "<path d=\"M\(x(mark.start)) 50 l-5 -7 h10 z\" fill=\"\(colour)\"><title>\(escape(ClockTime.tenths(mark.start))): \(shown(mark.text))</title></path>")
        }
        for change in r.shotChanges ?? [] {
            parts.append("<line class=\"shot\" x1=\"\(x(change))\" y1=\"4\" x2=\"\(x(change))\" y2=\"44\" stroke=\"#37474f\" stroke-width=\"0.6\" stroke-dasharray=\"2 2\">"
                + "<title>shot change \(escape(ClockTime.tenths(change)))</title></line>")
        }
        parts.append("<line x1=\"0\" y1=\"62\" x2=\"1000\" y2=\"62\" stroke=\"#888\"></line>")
        let step = tickStep(duration)
        for tick in stride(from: 0.0, through: duration, by: step) {
            parts.append("<line x1=\"\(x(tick))\" y1=\"62\" x2=\"\(x(tick))\" y2=\"67\" stroke=\"#888\"></line>"
                + "<text class=\"tick\" x=\"\(x(tick))\" y=\"80\" text-anchor=\"\(tick == 0 ? "start" : "middle")\">\(ClockTime.seconds(tick))</text>")
        }
        return parts.joined() + "</svg>\n"
    }

    /// A round step giving at most a dozen ticks.
    static func tickStep(_ duration: Double) -> Double {
        [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200].first { duration / $0 <= 12 } ?? 14_400
    }

    /// A URL for `path` that can only name a file: relative to the page's folder, `./` first and
    /// every part percent-encoded but for unreserved characters, so no name can make it a scheme
    /// (`javascript:`), a host (`//x`, `\\x`), a query or a fragment; without a folder, a file://
    /// URL built from the same parts.
    static func link(to path: String, from folder: URL?) -> String {
        let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        guard let folder else { return "file://" + target.dropFirst().map { "/" + encoded($0) }.joined() }
        let base = folder.standardizedFileURL.pathComponents
        let shared = zip(base, target).prefix { $0 == $1 }.count
        let steps = Array(repeating: "..", count: base.count - shared) + target.dropFirst(shared)
        return "./" + steps.map(encoded).joined(separator: "/")
    }

    /// One path part with every byte but RFC 3986's unreserved characters percent-encoded.
    static func encoded(_ part: String) -> String {
        part.utf8.map { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                return String(UnicodeScalar(byte))
            default:
                return String(format: "%%%02X", byte)
            }
        }.joined()
    }

    /// Captions on the player from the cue list (a <track> file would be refused on file:// pages),
    /// cues and timeline that seek, and the cue being shown outlined.
    static let script = """
        <script>
        for (const media of document.querySelectorAll('video[data-cues],audio[data-cues]')) {
          const list = document.getElementById(media.dataset.cues);
          const items = [...list.querySelectorAll('li')];
          const track = media.addTextTrack('captions', media.dataset.lang, media.dataset.lang);
          for (const li of items) {
            // A cue's text is WebVTT markup: escaped, the listed text reads as itself, tags and all.
            const text = li.querySelector('.text').innerText.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
            track.addCue(new VTTCue(parseFloat(li.dataset.start), parseFloat(li.dataset.end), text));
          }
          track.mode = 'showing';
          media.dataset.captions = track.cues.length;
          const seek = (seconds) => { media.currentTime = seconds; media.play().catch(() => {}); };
          for (const li of items) {
            li.querySelector('a.time').addEventListener('click', (event) => { event.preventDefault(); seek(parseFloat(li.dataset.start)); });
          }
          const svg = media.closest('section').querySelector('svg.timeline');
          for (const rect of svg.querySelectorAll('rect.cue')) {
            rect.addEventListener('click', () => seek(parseFloat(rect.dataset.start)));
          }
          media.addEventListener('timeupdate', () => {
            for (const li of items) {
              li.classList.toggle('now', media.currentTime >= parseFloat(li.dataset.start) && media.currentTime < parseFloat(li.dataset.end));
            }
          });
        }
        </script>

        """

    /// Text for an element or a quoted attribute, whichever quote it uses.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
    }

    /// A name or message as the terminal shows it: control and direction characters escaped, so
    /// a hostile name cannot hide a line break or reverse what follows it.
    static func shown(_ text: String) -> String {
        escape(Format.terminalSafe(text))
    }
}
