import CapforgeCore
import Foundation
import Media

/// Applies the notice policy to a script: the notice, when shown, covers every frame.
enum NoticeLine {
    /// Later than any video: notice events span the whole file whatever the script said.
    static let start = "0:00:00.00"
    static let end = "99:59:59.99"

    static func apply(_ mode: NoticeMode, text: String, to script: inout SubtitleScript) {
        let existing = script.noticeEvents
        switch mode {
        case .never:
            script.removeLines(existing.map(\.line))
        case .auto where existing.isEmpty:
            return
        case .auto, .always:
            if existing.isEmpty {
                addNotice(text: text, to: &script)
            } else {
                for event in existing { stretch(event, in: &script) }
            }
        }
    }

    private static func stretch(_ event: SubtitleScript.Event, in script: inout SubtitleScript) {
        let format = script.eventFormat
        guard let value = SubtitleScript.value(of: "Dialogue", in: script.lines[event.line]) else { return }
        var parts = value.split(separator: ",", maxSplits: max(format.count - 1, 0), omittingEmptySubsequences: false).map(String.init)
        for (i, name) in format.enumerated() where i < parts.count {
            if name.caseInsensitiveCompare("Start") == .orderedSame { parts[i] = start }
            if name.caseInsensitiveCompare("End") == .orderedSame { parts[i] = end }
        }
        script.replaceLine(event.line, with: "Dialogue: " + parts.joined(separator: ","))
    }

    private static func addNotice(text: String, to script: inout SubtitleScript) {
        if !script.styles.contains(where: { SubtitleScript.isNotice($0.name) }) {
            let format = script.styleFormat
            let values = noticeStyle(playResY: script.playResY)
            let line = "Style: " + format.map { values[$0.lowercased()] ?? "0" }.joined(separator: ",")
            script.append(line, toSection: "[V4+ Styles]", accepting: SubtitleScript.stylesSections, format: format)
        }
        let format = script.eventFormat
        let values = ["layer": "1", "start": start, "end": end, "style": SubtitleScript.noticeStyle, "name": "", "effect": "",
                      "text": ASSText.escape(text)]
        let line = "Dialogue: " + format.map { values[$0.lowercased()] ?? "0" }.joined(separator: ",")
        script.append(line, toSection: "[Events]", accepting: ["[events]"], format: format)
    }

    /// Top-centre white text on a translucent box, sized like Styles/default.style's Notice (which is for 1080 lines).
    private static func noticeStyle(playResY: Int) -> [String: String] {
        func scaled(_ size: Int) -> String { String(max(1, (size * playResY + 540) / 1080)) }
        return [
            "name": SubtitleScript.noticeStyle, "fontname": "DejaVu Sans", "fontsize": scaled(30),
            "primarycolour": "&H00FFFFFF", "secondarycolour": "&H000000FF", "outlinecolour": "&H00000000", "backcolour": "&H60000000",
            "scalex": "100", "scaley": "100", "borderstyle": "3", "outline": scaled(6), "alignment": "8",
            "marginl": scaled(40), "marginr": scaled(40), "marginv": scaled(30), "encoding": "1",
        ]
    }
}
