public enum BurnWarning: Sendable, Equatable, CustomStringConvertible {
    /// The demuxer reports a cut-off file as a normal end; this compares the last frame with the container's duration.
    case truncated(decodedUntil: Double, expected: Double)
    case corruptPackets(count: Int)
    case missingGlyphs(characters: [Character])
    /// An input stream the output container cannot hold and Capforge does not convert.
    case streamDropped(index: Int, codec: String)
    case unknownStreamDropped(index: Int)
    case audioReencoded(index: Int, from: String)
    case encoderOptionIgnored(name: String, encoder: String)
    case renderLimitsApplied(clamped: Int)
    case eventTextCut(count: Int, characters: Int)
    /// A text subtitle track the output container cannot hold, decoded and written in one it can.
    case subtitleConverted(index: Int, from: String, to: String)
    /// Events of a track that shows one at a time (mov_text) ended where the next began.
    case subtitlesShortened(track: String, count: Int)
    /// A track's events kept within the video: `cut` ended past its end, `dropped` began after it.
    case cuesClamped(track: String, cut: Int, dropped: Int, videoEnd: Double)
    case emptyTrackLeftOut(track: String)
    case titleCleaned(track: String, title: String)
    /// A QuickTime timecode track that the output does not write again from the video's tag.
    case timecodeLeftOut(index: Int, tagKept: Bool)

    public var description: String {
        switch self {
        case .truncated(let got, let expected):
            return String(format: "input looks truncated: video ends at %.2f s of %.2f s; the output holds only what exists", got, expected)
        case .corruptPackets(let n):
            return "\(n) corrupt video packet(s) skipped"
        case .missingGlyphs(let characters):
            return "no installed font has \(GlyphList(characters)); they show as boxes"
        case .streamDropped(let index, let codec):
            return "stream \(index) (\(codec)) cannot be stored in this output format and was left out"
        case .unknownStreamDropped(let index):
            return "stream \(index) is in a codec FFmpeg does not know (a damaged header?) and was left out"
        case .audioReencoded(let index, let codec):
            return "audio stream \(index) (\(codec)) cannot be stored in this output format; re-encoded to AAC"
        case .encoderOptionIgnored(let name, let encoder):
            return "encoder \(encoder) has no '\(name)' option; ignored"
        case .renderLimitsApplied(let n):
            return "\(n) outline, shadow, blur, scale or font-size value(s) in the subtitles were beyond what a frame can show and were reduced"
        case .eventTextCut(let n, let characters):
            return "\(n) subtitle event(s) longer than \(characters) characters were cut to that length"
        case .subtitleConverted(let index, let from, let to):
            return "subtitle stream \(index) (\(from)) cannot be stored in this output format; converted to \(to) subtitles (styling beyond bold, italics and colour is lost)"
        case .subtitlesShortened(let track, let n):
            return "\(n) event(s) of track '\(track)' overlapped the next and now end where it begins (MP4 text tracks show one at a time; use .mkv to keep them)"
        case .cuesClamped(let track, let cut, let dropped, let end):
            let parts = [cut > 0 ? "\(cut) cue(s) ran past it and now end there" : nil, dropped > 0 ? "\(dropped) cue(s) started after it and were left out" : nil]
            return "\(track): the video ends at \(String(format: "%.2f", end)) s: " + parts.compactMap { $0 }.joined(separator: "; ")
        case .emptyTrackLeftOut(let track):
            return "\(track) holds no cues within the video (an empty file, or an ASS file without [Events]); no track was written for it"
        case .titleCleaned(let track, let title):
            return "\(track): control characters removed from the track title (no player can show them); it is now '\(title)'"
        case .timecodeLeftOut(let index, let tagKept):
            return "stream \(index) (a QuickTime timecode track) was left out" + (tagKept ? "; the video keeps its start timecode as a tag" : "")
        }
    }
}

public struct BurnReport: Sendable, Equatable {
    public var outputPath: String
    public var frames: Int
    /// Seconds of video written, from the first frame to the end of the last.
    public var duration: Double
    public var width: Int
    public var height: Int
    public var warnings: [BurnWarning]

    public var isTruncated: Bool {
        warnings.contains { if case .truncated = $0 { return true } else { return false } }
    }
}

public struct BurnProgress: Sendable, Equatable {
    /// Share of the input's duration done, 0...1 (0 while the duration is unknown).
    public var fraction: Double
    public var framesPerSecond: Double
    public var frames: Int
}

/// Characters listed with their code points, so invisible or confusable ones can be told apart.
struct GlyphList: CustomStringConvertible {
    let characters: [Character]
    init(_ characters: [Character]) { self.characters = characters }

    var description: String {
        let shown = characters.prefix(12).map { c in
            let points = c.unicodeScalars.map { String(format: "U+%04X", $0.value) }.joined(separator: " ")
            return "'\(c)' (\(points))"
        }
        let more = characters.count > 12 ? " and \(characters.count - 12) more" : ""
        return shown.joined(separator: ", ") + more
    }
}
