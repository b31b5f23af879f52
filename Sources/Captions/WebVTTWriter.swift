import CapforgeCore

/// WebVTT with a `NOTE` block stating the recognition tier.
public struct WebVTTWriter: SubtitleWriter {
    public var cues: [Cue]
    public var transcript: Transcript

    public init(cues: [Cue], transcript: Transcript) {
        self.cues = cues
        self.transcript = transcript
    }

    public func render() -> String {
        // A NOTE may not contain "-->", which no summary line does.
        let noCues = cues.isEmpty ? ["No speech was found: this file has no cues"] : []
        var blocks = ["WEBVTT\n", "NOTE\n" + (TierSummary(transcript: transcript).lines + noCues).joined(separator: "\n") + "\n"]
        for cue in cues {
            let timing = "\(Timecode.milliseconds(cue.start, mark: ".")) --> \(Timecode.milliseconds(cue.end, mark: "."))"
            blocks.append(timing + "\n" + cue.lines.map(escape).joined(separator: "\n") + "\n")
        }
        return blocks.joined(separator: "\n")
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
