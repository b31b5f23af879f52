import CapforgeCore
import Foundation

/// A subtitle format's name, as `--formats` takes it and manifests and settings keys hold it:
/// encoded as the bare name, so keys made before the registry stay current. Each format type
/// declares its own (`SubtitleFormat.srt` beside `SRTFormat`).
public struct SubtitleFormat: RawRepresentable, Hashable, Codable, Sendable {
    public let rawValue: String

    /// A registered format's name; nil for any other.
    public init?(rawValue: String) {
        guard SubtitleFormats.all.contains(where: { $0.id.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    init(_ name: String) { rawValue = name }

    public var fileExtension: String { SubtitleFormats.named(self).fileExtension }
}

/// One subtitle format: its name, its files and its writer. Adding a format is one type and its
/// line in `SubtitleFormats.all`.
public protocol SubtitleFileFormat: Sendable {
    var id: SubtitleFormat { get }
    /// What its files end with after the language (`talk.en.srt`); it may hold a dot (`ebu-tt-d.xml`).
    var fileExtension: String { get }
    func writer(for captions: CaptionsToWrite) -> any SubtitleWriter
}

/// A format Capforge reads too: how its files are named and recognised, read whole or a cue at a
/// time, and where its times stand for re-timing.
public protocol ReadableSubtitleFormat: SubtitleFileFormat {
    /// The extensions (lowercase) of files read as this format.
    var extensions: [String] { get }
    /// Whether a file whose first line with text (trimmed) is `line` is in this format.
    func opens(with line: String) -> Bool
    func read(_ text: String, lines: [String]) throws -> (cues: [Cue], warnings: [String])
    /// Calls `body` with each cue of the file (whose first bytes are `head`) as
    /// `SubtitleReader.forEachCue` promises; returns how the file was read.
    func forEachCue(fileAt url: URL, head: Data, limit: Int?, _ body: (Cue) throws -> Void) throws -> (format: SubtitleFormat, encoding: TextEncoding, warnings: [String])
    /// Where each cue's times stand in `text` (read already), for `RetimableSubtitles`.
    func timeStamps(in text: String) throws -> RetimableSubtitles.TimeStamps
    /// The step its times are written in, in milliseconds, which lint's frame gaps allow for.
    var timeStep: Double { get }
}

extension ReadableSubtitleFormat {
    public var timeStep: Double { 1 }
}

/// What any format's writer may draw on, made once per file.
public struct CaptionsToWrite {
    public var cues: [Cue]
    public var transcript: Transcript
    public var frameRate: Double?
    public var karaoke: Bool
    /// Made before the formats are written: the burn-in takes it too.
    public var ass: ASSWriter
    /// What the JSON records of how the captions were made.
    public var settings: CaptionSettings
    public var quality: QualityReport

    public init(cues: [Cue], transcript: Transcript, frameRate: Double?, karaoke: Bool, ass: ASSWriter, settings: CaptionSettings, quality: QualityReport) {
        self.cues = cues
        self.transcript = transcript
        self.frameRate = frameRate
        self.karaoke = karaoke
        self.ass = ass
        self.settings = settings
        self.quality = quality
    }
}

/// Every subtitle format Capforge knows, registered once.
public enum SubtitleFormats {
    /// In the order `--formats` lists them.
    public static let all: [any SubtitleFileFormat] = [
        SRTFormat(), WebVTTFormat(), ASSFormat(), JSONFormat(), TTMLFormat(), EBUTTDFormat(), SCCFormat(), STLFormat(),
    ]

    static let readable = all.compactMap { $0 as? any ReadableSubtitleFormat }

    /// A file no format recognises is read as SRT, the plainest.
    static let fallback: any ReadableSubtitleFormat = SRTFormat()

    public static func named(_ id: SubtitleFormat) -> any SubtitleFileFormat {
        guard let format = all.first(where: { $0.id == id }) else { preconditionFailure("\(id.rawValue) is declared but not in SubtitleFormats.all") }
        return format
    }

    /// The format a file with this extension is read as (`.ssa` as ASS, `.xml` as TTML).
    public static func reading(fileExtension: String) -> (any ReadableSubtitleFormat)? {
        let name = fileExtension.lowercased()
        return readable.first { $0.extensions.contains(name) }
    }

    /// The reader of `id`; nil for a format written only, which is recognised from the content.
    static func reader(_ id: SubtitleFormat?) -> (any ReadableSubtitleFormat)? {
        readable.first { $0.id == id }
    }

    /// The format a file's first line with text says.
    static func recognised(_ lines: [String]) -> any ReadableSubtitleFormat {
        let first = lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }?.trimmingCharacters(in: .whitespaces) ?? ""
        return readable.first { $0.opens(with: first) } ?? fallback
    }
}
