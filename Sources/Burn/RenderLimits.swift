import Foundation
import Media

/// Bounds on what one script can make libass draw. An outline of 10,000 px, a blur of 300 or a
/// 5,000 % scale costs gigabytes per frame and shows nothing a viewer could read, so such values
/// are clamped; an event longer than any screen can hold is cut.
enum RenderLimits {
    /// Characters of one event's text (overrides included); a full screen of text is under 1,000.
    static let maxEventCharacters = 4000

    /// The largest value an override tag or style field may take, for a script of this height.
    static func ceiling(forTag tag: String, playResY: Int) -> Double? {
        let height = Double(playResY)
        switch tag {
        case "fs", "Fontsize": return height
        case "bord", "xbord", "ybord", "shad", "xshad", "yshad", "Outline", "Shadow": return height / 20
        case "blur", "be": return 20
        case "fscx", "fscy", "ScaleX", "ScaleY": return 500
        case "fsp", "Spacing": return height / 10
        default: return nil
        }
    }

    /// Override tags with a numeric size argument, longest first so `\fscx` is not read as `\fs`.
    static let sizeTags = ["xbord", "ybord", "xshad", "yshad", "bord", "shad", "blur", "fscx", "fscy", "fsp", "fs", "be"]

    /// The text with every size override clamped, and how many were.
    static func clampOverrides(in text: String, playResY: Int) -> (text: String, clamped: Int) {
        var result = ""
        var clamped = 0
        var inBlock = false
        var rest = Substring(text)
        while let first = rest.first {
            if first == "{" { inBlock = true } else if first == "}" { inBlock = false }
            guard inBlock, first == "\\", let tag = sizeTags.first(where: { rest.dropFirst().hasPrefix($0) }) else {
                result.append(first)
                rest = rest.dropFirst()
                continue
            }
            rest = rest.dropFirst(1 + tag.count)
            let number = rest.prefix { $0.isNumber || "+-.eE".contains($0) }
            rest = rest.dropFirst(number.count)
            result += "\\" + tag
            if let value = Double(number), let ceiling = ceiling(forTag: tag, playResY: playResY), abs(value) > ceiling {
                result += (value < 0 ? -ceiling : ceiling).formatted(.number.grouping(.never).precision(.fractionLength(0...2)))
                clamped += 1
            } else {
                result += number
            }
        }
        return (result, clamped)
    }

    /// Cuts an event's text to `maxEventCharacters`, never inside an override block.
    static func cut(_ text: String) -> String? {
        guard text.count > maxEventCharacters else { return nil }
        var kept = String(text.prefix(maxEventCharacters))
        if let open = kept.lastIndex(of: "{"), !kept[open...].contains("}") { kept = String(kept[..<open]) }
        return kept
    }
}

extension SubtitleScript {
    /// The script with render limits applied, and what was changed (for the burn's warnings).
    func limitedForRendering() -> (script: SubtitleScript, warnings: [BurnWarning]) {
        var script = self
        let height = playResY
        var clamped = 0
        var cut = 0
        let styleFormat = self.styleFormat
        for (index, line) in lines.enumerated() {
            if let value = Self.value(of: "Style", in: line) {
                let parts = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                var changed = parts
                for (position, name) in styleFormat.enumerated() where position < parts.count {
                    guard let ceiling = RenderLimits.ceiling(forTag: name, playResY: height),
                          let number = Double(parts[position].trimmingCharacters(in: .whitespaces)), abs(number) > ceiling else { continue }
                    changed[position] = String(Int(number < 0 ? -ceiling : ceiling))
                    clamped += 1
                }
                if changed != parts { script.replaceLine(index, with: "Style: " + changed.joined(separator: ",")) }
            }
        }
        for event in events {
            var text = event.text
            if let shorter = RenderLimits.cut(text) {
                text = shorter
                cut += 1
            }
            let limited = RenderLimits.clampOverrides(in: text, playResY: height)
            clamped += limited.clamped
            guard limited.text != event.text else { continue }
            // The text is the line's last field: everything after the other fields.
            script.replaceLine(event.line, with: String(lines[event.line].dropLast(event.text.count)) + limited.text)
        }
        var warnings: [BurnWarning] = []
        if clamped > 0 { warnings.append(.renderLimitsApplied(clamped: clamped)) }
        if cut > 0 { warnings.append(.eventTextCut(count: cut, characters: RenderLimits.maxEventCharacters)) }
        return (script, warnings)
    }
}
