import CapforgeCore

/// SubRip: numbered cues with `HH:MM:SS,mmm` times. Most players show SRT through libass
/// (mpv, VLC, FFmpeg's burn-in), which obeys `{\…}` override blocks and `\N` breaks in it: the
/// text is escaped as for ASS, so that a brace or a backslash in a word shows as itself.
public struct SRTWriter: TextSubtitleWriter {
    public var cues: [Cue]

    public init(cues: [Cue]) {
        self.cues = cues
    }

    public func render() -> String {
        cues.enumerated().map { index, cue in
            let timing = "\(Timecode.milliseconds(cue.start, mark: ",")) --> \(Timecode.milliseconds(cue.end, mark: ","))"
            return "\(index + 1)\n\(timing)\n\(cue.lines.map(ASSEventText.escape).joined(separator: "\n"))\n"
        }.joined(separator: "\n")
    }
}
