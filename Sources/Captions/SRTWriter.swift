import CapforgeCore

/// SubRip: numbered cues with `HH:MM:SS,mmm` times.
public struct SRTWriter: TextSubtitleWriter {
    public var cues: [Cue]

    public init(cues: [Cue]) {
        self.cues = cues
    }

    public func render() -> String {
        cues.enumerated().map { index, cue in
            let timing = "\(Timecode.milliseconds(cue.start, mark: ",")) --> \(Timecode.milliseconds(cue.end, mark: ","))"
            return "\(index + 1)\n\(timing)\n\(cue.lines.joined(separator: "\n"))\n"
        }.joined(separator: "\n")
    }
}
