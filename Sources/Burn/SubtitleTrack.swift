import CapforgeCore
import Captions
import Foundation

/// One subtitle track to add to a video: its events in ASS form (what every libavcodec text
/// encoder takes), whether the ASS styling is to be kept, and how players should name it.
public struct SubtitleTrack: Sendable, Equatable {
    public struct Event: Sendable, Equatable {
        /// Milliseconds from the video's start.
        public var start: Int
        public var end: Int
        public var style: String
        public var layer: Int
        /// The ASS `Text` field (`\N` breaks, `{...}` overrides).
        public var text: String
    }

    /// Text tracks become mov_text in MP4 and SRT in Matroska; styled ones ASS in Matroska
    /// (mov_text in MP4, which keeps bold, italics, underline and colour).
    public enum Kind: Sendable, Equatable { case text, styled }

    public var kind: Kind
    /// The ASS script's sections before its events (styles included).
    public var header: String
    public var events: [Event]
    public var language: Language?
    public var title: String
    public var isDefault = false
    /// Shown even when subtitles are off (foreign-language parts of a film).
    public var isForced = false
    /// The file the track was read from, named in the mux's warnings and errors.
    public var source: String?
    /// What reading that file assumed or left out.
    public var readingWarnings: [String] = []

    public init(kind: Kind, header: String, events: [Event], language: Language?, title: String, source: String? = nil) {
        self.kind = kind
        self.header = header
        self.events = events
        self.language = language
        self.title = title
        self.source = source
    }

    /// How warnings and errors name the track: its file, else its title.
    var name: String { source ?? "track '\(title)'" }

    /// Plain cues, as an SRT file holds them.
    public static func text(cues: [Cue], language: Language?, title: String, source: String? = nil) -> SubtitleTrack {
        let events = cues.map { cue in
            Event(start: cue.start, end: cue.end, style: "Default", layer: 0, text: cue.lines.map(escapedForEncoders).joined(separator: "\\N"))
        }
        return SubtitleTrack(kind: .text, header: plainHeader, events: events, language: language, title: title, source: source)
    }

    /// A title as a player's menu can show it: control characters (an escape sequence from a
    /// file name, a tab) are no use to any player and are removed.
    public static func menuTitle(_ title: String) -> String {
        String(String.UnicodeScalarView(title.unicodeScalars.filter { $0.properties.generalCategory != .control }))
    }

    /// libavcodec's text encoders read only `{\` as an override and `\n`/`\N` as a break, so
    /// literal braces stay (players show them); a word joiner either side of a backslash keeps
    /// it from starting either.
    static func escapedForEncoders(_ line: String) -> String {
        line.replacingOccurrences(of: "\\", with: "\u{2060}\\\u{2060}")
    }

    /// An ASS script with its styles, the Basic style and any notice event kept.
    public static func styled(_ script: ASSDocument, language: Language?, title: String, source: String? = nil) -> SubtitleTrack {
        let events = script.events.compactMap { record -> Event? in
            guard let start = record.startMilliseconds, let end = record.endMilliseconds else { return nil }
            return Event(start: start, end: end, style: record.style, layer: record["Layer"].flatMap { Int($0) } ?? 0, text: record.text)
        }
        return SubtitleTrack(kind: .styled, header: script.headerText, events: events, language: language, title: title, source: source)
    }

    /// What a viewer reads in the player's subtitle menu: the language, that the words were
    /// recognised by machine, and whether the basic tier made them.
    public static func title(language: Language?, tier: TranscriptTier?, translatedFrom source: Language? = nil) -> String {
        let name = language?.name ?? "Unknown language"
        var notes = ["automatic"]
        if let source { notes.append("translated from \(source.name)") }
        if let tier, tier != .modern { notes.append(tier == .basic ? "basic quality" : "partly basic quality") }
        return "\(name) (\(notes.joined(separator: ", ")))"
    }

    /// Encoders need a script header even for plain text; mov_text takes its default style
    /// from it: libavcodec's own default (Arial 16 on a 288-line canvas), so decoders see no style change.
    static let plainHeader = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 384
        PlayResY: 288

        [V4+ Styles]
        \(ASSDocument.formatLine(ASSDocument.defaultStyleFormat))
        Style: Default,Arial,16,&H00FFFFFF,&H000000FF,&H00000000,&H80000000,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,1

        [Events]
        \(ASSDocument.formatLine(ASSDocument.defaultEventFormat))

        """
}
