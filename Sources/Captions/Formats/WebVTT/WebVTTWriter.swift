import CapforgeCore

/// WebVTT with a `NOTE` block stating the recognition tier.
public struct WebVTTWriter: TextSubtitleWriter {
    public var cues: [Cue]
    public var transcript: Transcript
    /// Each word after the first preceded by its start (`<00:00:01.500>`), so players that show
    /// WebVTT's timestamps light the words as they are said.
    public var karaoke: Bool

    public init(cues: [Cue], transcript: Transcript, karaoke: Bool = false) {
        self.cues = cues
        self.transcript = transcript
        self.karaoke = karaoke
    }

    public func render() -> String {
        // A NOTE ends at a blank line, which no summary line holds, or at a line with "-->",
        // the start of a cue: one in a name is parted by a word joiner.
        let noCues = cues.isEmpty ? ["No speech was found: this file has no cues"] : []
        let note = (TierSummary(transcript: transcript).lines + noCues).map { $0.replacingOccurrences(of: "-->", with: "--\u{2060}>") }
        var blocks = ["WEBVTT\n", "NOTE\n" + note.joined(separator: "\n") + "\n"]
        for cue in cues {
            let timing = "\(Timecode.milliseconds(cue.start, mark: ".")) --> \(Timecode.milliseconds(cue.end, mark: "."))"
            blocks.append(timing + "\n" + (karaoke ? timestamped(cue) : cue.lines.map(escape)).joined(separator: "\n") + "\n")
        }
        return blocks.joined(separator: "\n")
    }

    /// The cue's lines with a timestamp before each word but the first; a timestamp must lie
    /// strictly inside the cue, so one at its start is left out.
    private func timestamped(_ cue: Cue) -> [String] {
        let starts = KaraokeTiming(cue).starts
        var index = 0
        return cue.markedLines { _ in false }.map { runs in
            runs.map { run -> String in
                guard index < starts.count, run.text.contains(where: { !$0.isWhitespace }) else { return escape(run.text) }
                defer { index += 1 }
                let at = starts[index]
                return (at > cue.start && at < cue.end ? "<\(Timecode.milliseconds(at, mark: "."))>" : "") + escape(run.text)
            }.joined()
        }
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
