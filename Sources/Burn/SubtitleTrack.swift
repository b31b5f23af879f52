import CapforgeCore
import Captions
import Foundation

/// One subtitle track to add to a video: its events in ASS form (what every libavcodec text
/// encoder takes), whether the ASS styling is to be kept, and how players should name it.
public struct SubtitleTrack: Sendable {
    public struct Event: Sendable, Equatable {
        /// Milliseconds from the video's start.
        public var start: Int
        public var end: Int
        public var style: String
        public var layer: Int
        /// The ASS `Text` field (`\N` breaks, `{...}` overrides).
        public var text: String

        /// The order the muxer writes events in: by start, then layer (then as given).
        static let isWrittenBefore: @Sendable (Event, Event) -> Bool = { ($0.start, $0.layer) < ($1.start, $1.layer) }
    }

    /// Text tracks become mov_text in MP4 and SRT in Matroska; styled ones ASS in Matroska
    /// (mov_text in MP4, which keeps bold, italics, underline and colour).
    public enum Kind: Sendable, Equatable { case text, styled }

    public var kind: Kind
    /// The ASS script's sections before its events (styles included).
    public var header: String
    /// In the order they are written (`Event.isWrittenBefore`); a file's are spooled to disk
    /// when many, so a track of any size takes little memory. A file's events out of order are
    /// sorted, not refused: a container holds packets in time order, and scripts grouped by
    /// style or SRT files merged from two are common, so a file that muxed before muxes the same.
    public var events: SortedSpool<Event>
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
        self.init(kind: kind, header: header, events: SortedSpool(sorting: events, by: Event.isWrittenBefore), language: language, title: title, source: source)
    }

    private init(kind: Kind, header: String, events: SortedSpool<Event>, language: Language?, title: String, source: String?) {
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
        SubtitleTrack(kind: .text, header: plainHeader, events: cues.map(Event.init(plain:)), language: language, title: title, source: source)
    }

    /// The cues of a subtitle file of any size as plain text (an ASS script's in time order),
    /// read a cue at a time; the file is bounded as `SubtitleReader.read` bounds it.
    public static func text(fileAt url: URL, language: Language?, title: String) throws -> SubtitleTrack {
        var warnings: [String] = []
        let events = try SortedSpool(by: Event.isWrittenBefore) { add in
            warnings = try SubtitleReader.forEachCue(fileAt: url, limit: SubtitleReader.sizeLimit) { try add(Event(plain: $0)) }.warnings
        }
        var track = SubtitleTrack(kind: .text, header: plainHeader, events: events, language: language, title: title, source: url.path)
        track.readingWarnings = warnings
        return track
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
        SubtitleTrack(kind: .styled, header: script.headerText, events: script.events.compactMap(Event.init(record:)), language: language, title: title, source: source)
    }

    /// An ASS script of any size with its styles, read an event at a time (checked as
    /// `SubtitleReader.script` checks it); the file is bounded as `SubtitleReader.read` bounds it.
    public static func styled(scriptAt url: URL, language: Language?, title: String) throws -> SubtitleTrack {
        var header = ""
        let events = try SortedSpool(by: Event.isWrittenBefore) { add in
            header = try SubtitleReader.forEachEvent(ofScriptAt: url, limit: SubtitleReader.sizeLimit) { record in
                if let event = Event(record: record) { try add(event) }
            }.header
        }
        return SubtitleTrack(kind: .styled, header: header, events: events, language: language, title: title, source: url.path)
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

extension SubtitleTrack.Event: Spoolable {
    /// A plain cue: one line of text per cue line, escaped for the encoders.
    init(plain cue: Cue) {
        self.init(start: cue.start, end: cue.end, style: "Default", layer: 0, text: cue.lines.map(SubtitleTrack.escapedForEncoders).joined(separator: "\\N"))
    }

    /// A `Dialogue` record's event; nil when its times are not times (a notice left unchecked).
    init?(record: ASSDocument.Record) {
        guard let start = record.startMilliseconds, let end = record.endMilliseconds else { return nil }
        self.init(start: start, end: end, style: record.style, layer: record["Layer"].flatMap { Int($0) } ?? 0, text: record.text)
    }

    public func spool(into writer: inout SpoolWriter) {
        writer.write(start)
        writer.write(end)
        writer.write(style)
        writer.write(layer)
        writer.write(text)
    }

    public init(unspooling reader: inout SpoolReader) {
        let start = reader.readInt(), end = reader.readInt(), style = reader.readString(), layer = reader.readInt()
        self.init(start: start, end: end, style: style, layer: layer, text: reader.readString())
    }
}
