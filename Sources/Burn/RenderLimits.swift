import Captions
import Foundation

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
        var clamped = 0
        let pieces = ASSEventText(text).pieces.map { piece -> Substring in
            guard piece.kind == .overrides else { return piece.raw }
            let block = clampTags(in: piece.raw, playResY: playResY)
            clamped += block.clamped
            return block.text
        }
        return (pieces.joined(), clamped)
    }

    private static func clampTags(in block: Substring, playResY: Int) -> (text: Substring, clamped: Int) {
        var result = ""
        var clamped = 0
        var rest = block
        while let first = rest.first {
            guard first == "\\", let tag = sizeTags.first(where: { rest.dropFirst().hasPrefix($0) }) else {
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
        return (Substring(result), clamped)
    }

    /// Cuts an event's text to `maxEventCharacters`, never inside an override block.
    static func cut(_ text: String) -> String? {
        guard text.count > maxEventCharacters else { return nil }
        var kept = String(text.prefix(maxEventCharacters))
        if let open = kept.lastIndex(of: "{"), !kept[open...].contains("}") { kept = String(kept[..<open]) }
        return kept
    }
}

extension ASSDocument {
    /// The script with render limits applied, and what was changed (for the burn's warnings).
    func limitedForRendering() -> (script: ASSDocument, warnings: [BurnWarning]) {
        var script = self
        let height = playResY
        var clamped = 0
        var cut = 0
        for var style in styles {
            var changed = false
            for (position, name) in style.format.enumerated() where position < style.values.count {
                guard let ceiling = RenderLimits.ceiling(forTag: name, playResY: height),
                      let number = Double(style.values[position]), abs(number) > ceiling else { continue }
                style.values[position] = String(Int(number < 0 ? -ceiling : ceiling))
                clamped += 1
                changed = true
            }
            if changed { script.replace(style) }
        }
        for var event in events {
            var text = event.text
            if let shorter = RenderLimits.cut(text) {
                text = shorter
                cut += 1
            }
            let limited = RenderLimits.clampOverrides(in: text, playResY: height)
            clamped += limited.clamped
            guard limited.text != event.text else { continue }
            event["Text"] = limited.text
            script.replace(event)
        }
        var warnings: [BurnWarning] = []
        if clamped > 0 { warnings.append(.renderLimitsApplied(clamped: clamped)) }
        if cut > 0 { warnings.append(.eventTextCut(count: cut, characters: RenderLimits.maxEventCharacters)) }
        return (script, warnings)
    }
}
