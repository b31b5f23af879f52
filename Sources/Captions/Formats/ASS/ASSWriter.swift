import CapforgeCore
import Foundation

/// The video picture captions are laid out on.
public struct VideoSize: Sendable, Equatable, Codable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// ASS for libass burn-in and players: canvas equal to the video (libass's 384×288 default
/// would blow fonts up), basic-tier cues in the `Basic` style, a `Notice` event while any
/// basic-tier speech exists, and low-confidence words coloured.
public struct ASSWriter: TextSubtitleWriter {
    public var cues: [Cue]
    public var transcript: Transcript
    public var video: VideoSize
    public var style: StyleSheet
    /// Words scoring below this (calibrated when known) are coloured.
    public var lowConfidenceThreshold: Double
    public var noticeText: String
    /// Each word lit as it is said (`\kf`), in place of the low-confidence colour.
    public var karaoke: Bool

    public init(
        cues: [Cue], transcript: Transcript, video: VideoSize, style: StyleSheet,
        lowConfidenceThreshold: Double = Confidence.defaultThreshold, noticeText: String = QualityNotice.english, karaoke: Bool = false
    ) {
        self.cues = cues
        self.transcript = transcript
        self.video = video
        self.style = style
        self.lowConfidenceThreshold = lowConfidenceThreshold
        self.noticeText = noticeText
        self.karaoke = karaoke
    }

    public func render() -> String { document().text }

    public func document() -> ASSDocument {
        let summary = TierSummary(transcript: transcript)
        var lines = [ASSDocument.Section.scriptInfo.header, "; Capforge captions"] + summary.lines.map { "; " + $0 }
        lines += [
            "ScriptType: v4.00+",
            // Lines are broken by the cue builder; smart wrapping only rescues a line too wide for the picture.
            "WrapStyle: 3",
            "ScaledBorderAndShadow: yes",
            // libass ignores this header; burn-in converts colours with the video's own matrix.
            "YCbCr Matrix: None",
            "PlayResX: \(video.width)",
            "PlayResY: \(video.height)",
            "",
            ASSDocument.Section.styles.header,
            ASSDocument.formatLine(style.format),
        ]
        lines += style.scaledStyles(height: video.height).map { ASSDocument.recordLine("Style", values: $0) }
        lines += ["", ASSDocument.Section.events.header, ASSDocument.formatLine(ASSDocument.defaultEventFormat)]
        if summary.hasBasicSpeech {
            let end = max(Int((transcript.duration * 1000).rounded()), cues.map(\.end).max() ?? 0)
            lines.append(event(layer: 1, start: 0, end: end, style: ASSDocument.noticeStyle, text: ASSEventText.escape(noticeText)))
        }
        for cue in cues {
            let text = karaoke ? karaokeText(cue) : colouredLines(cue).joined(separator: "\\N")
            lines.append(event(layer: 0, start: cue.start, end: cue.end, style: cue.tier == .basic ? "Basic" : "Default", text: text))
        }
        return ASSDocument(lines: lines)
    }

    private func event(layer: Int, start: Int, end: Int, style: String, text: String) -> String {
        ASSDocument.recordLine("Dialogue", values: [
            "Layer": String(layer), "Start": Timecode.centiseconds(start), "End": Timecode.centiseconds(end), "Style": style, "Text": text,
        ], format: ASSDocument.defaultEventFormat)
    }

    /// Each line with low-confidence words wrapped in a colour override.
    private func colouredLines(_ cue: Cue) -> [String] {
        cue.markedLines { $0.score < lowConfidenceThreshold }.map { runs in
            runs.map { $0.marked ? "{\\c&H\(colourTag)&}\(ASSEventText.escape($0.text)){\\r}" : ASSEventText.escape($0.text) }.joined()
        }
    }

    /// The cue's lines with a `\kf` sweep per word, timed by the words' starts (the cue's own
    /// timing on screen is the builder's, so the first word may wait), words to come in grey.
    private func karaokeText(_ cue: Cue) -> String {
        let timing = KaraokeTiming(cue)
        var text = "{\\2c&H808080&}"
        if timing.lead > 0 { text += "{\\k\(timing.lead)}" }
        var index = 0
        text += cue.markedLines { _ in false }.map { runs in
            runs.map { run -> String in
                // Runs alternate between the words, in order, and the spaces between them.
                guard index < timing.centiseconds.count, run.text.contains(where: { !$0.isWhitespace }) else { return ASSEventText.escape(run.text) }
                defer { index += 1 }
                return "{\\kf\(timing.centiseconds[index])}" + ASSEventText.escape(run.text)
            }.joined()
        }.joined(separator: "\\N")
        return text
    }

    /// `\c` takes BBGGRR: the style file's colour without its alpha byte.
    private var colourTag: String {
        String(style.lowConfidenceColour.uppercased().replacingOccurrences(of: "&", with: "").dropFirst().suffix(6))
    }
}
