import CapforgeCore
import Foundation
import Captions
import Media

/// A track `SubtitleMux` wrote.
public struct MuxedTrack: Sendable, Equatable {
    public var codec: String
    public var languageTag: String?
    public var title: String
}

public struct MuxReport: Sendable, Equatable {
    public var outputPath: String
    /// The subtitle tracks added, after every stream of the input.
    public var added: [MuxedTrack]
    public var warnings: [BurnWarning]
}

/// Why a mux cannot be made, with what to do instead.
public enum MuxError: Error, Equatable, CustomStringConvertible {
    case subtitleFileAsVideo(path: String)
    case nothingToSubtitle(path: String)
    case streamNotStorable(path: String, index: Int, codec: String, container: String, matroskaHolds: Bool)
    case noCues(tracks: [String], videoEnd: Double?)
    case tooManyStyles(track: String, count: Int, limit: Int)

    public var description: String {
        switch self {
        case .subtitleFileAsVideo(let path):
            return "\(path) is a subtitle file, not a video: give the video first, then the subtitle files"
        case .nothingToSubtitle(let path):
            return "\(path) has no video or audio stream to add subtitle tracks to: give the video first"
        case .streamNotStorable(let path, let index, let codec, let container, let matroskaHolds):
            return "\(path): video stream \(index) (\(codec)) cannot be copied into \(container) output; "
                + (matroskaHolds ? "name a Matroska output (.mkv), which holds it" : "convert the video to a common codec first")
        case .noCues(let tracks, let end):
            let within = end.map { String(format: " (the video ends at %.2f s)", $0) } ?? ""
            return "nothing to add: \(tracks.joined(separator: ", ")) hold(s) no cues within the video\(within): "
                + "an empty file, an ASS file without [Events], or cues that all start after the end"
        case .tooManyStyles(let track, let count, let limit):
            return "\(track): its events use \(count) styles, more than an MP4 text track takes (\(limit)); name a Matroska output (.mkv), which keeps the ASS whole"
        }
    }
}

/// Adds subtitle tracks to a copy of a video: every stream of the input copied packet for
/// packet, existing subtitle tracks kept (text ones the container cannot hold converted to
/// its codec), then one track per `SubtitleTrack` with its events kept within the video
/// (and none for a track left without events), written atomically to `output`.
public struct SubtitleMux: Sendable {
    public let input: String
    public let output: String
    public let tracks: [SubtitleTrack]
    public let outputPolicy: OutputPolicy
    /// Refuse, rather than write a copy with nothing added, when no track has a cue within the
    /// video (`capforge mux`, where the user named the files).
    public var requiresCues = false

    public init(input: String, output: String, tracks: [SubtitleTrack], outputPolicy: OutputPolicy) {
        self.input = input
        self.output = output
        self.tracks = tracks
        var policy = outputPolicy.protecting([input])
        policy.streamsToSpecialFiles = false
        self.outputPolicy = policy
    }

    /// The container a subtitled copy keeps: the input's own for the MP4 family (which all take
    /// mov_text), Matroska for everything else (it holds any codec and SRT or ASS tracks).
    public static func outputExtension(for input: URL, container: String) -> String {
        let ext = input.pathExtension.lowercased()
        return container.split(separator: ",").contains("mp4") && ["mp4", "m4v", "mov"].contains(ext) ? ext : "mkv"
    }

    /// Throws `Cancelled()` when cancelled; the output path is then left untouched.
    public func run(cancellation: Cancellation? = nil) throws -> MuxReport {
        // A folder or device at the output is refused by name before its extension is asked
        // what format it is.
        _ = try outputPolicy.destination(for: URL(fileURLWithPath: output))
        return try MuxSession(input: input, output: output, tracks: tracks, policy: outputPolicy, requiresCues: requiresCues).run(cancellation: cancellation)
    }
}

private final class MuxSession {
    private let input: InputFile
    private let output: OutputFile
    private let copier: StreamCopier
    private var added: [AddedTrack] = []
    private let kinds: [StreamSummary.Kind]
    private var report: [MuxedTrack] = []
    private var warnings: [BurnWarning] = []
    /// Milliseconds from the file's start to where it should end, when known.
    private let expectedEnd: Int?

    init(input inputPath: String, output outputPath: String, tracks: [SubtitleTrack], policy: OutputPolicy, requiresCues: Bool) throws {
        let file = try InputFile(path: inputPath)
        input = file
        let streams = file.streams
        kinds = streams.map(\.kind)
        guard kinds.contains(.video) || kinds.contains(.audio) else {
            let onlySubtitles = !kinds.isEmpty && kinds.allSatisfy { $0 == .subtitle }
            throw onlySubtitles ? MuxError.subtitleFileAsVideo(path: inputPath) : MuxError.nothingToSubtitle(path: inputPath)
        }
        let end = try Self.mediaEnd(of: inputPath)
        expectedEnd = end
        var kept: [SubtitleTrack] = []
        for track in tracks where try Self.keeps(track, end: end, warnings: &warnings) { kept.append(track) }
        if requiresCues, kept.isEmpty, !tracks.isEmpty {
            throw MuxError.noCues(tracks: tracks.map(\.name), videoEnd: end.map { Double($0) / 1000 })
        }
        output = try OutputFile(path: outputPath, policy: policy)
        copier = StreamCopier(input: input, output: output)
        let picture = streams.first { $0.kind == .video }
        let size = (width: picture?.width ?? 0, height: picture?.height ?? 0)

        // Text tracks this container cannot hold are read back and written again in its codec.
        let converted = Set(input.subtitleStreams.filter { $0.isText && output.refuses(stream: $0.index, of: input) }.map(\.index))
        for stream in streams where !converted.contains(stream.index) {
            let routed = try copier.route(stream.index, kinds: [.video, .audio, .subtitle, .attachment])
            // A copy without its picture is no subtitled video (cover art may go).
            if !routed, stream.kind == .video, !stream.isAttachedPicture {
                throw MuxError.streamNotStorable(path: inputPath, index: stream.index, codec: stream.codec, container: output.formatName,
                                                 matroskaHolds: OutputFile.matroskaHolds(stream: stream.index, of: input))
            }
        }
        if !converted.isEmpty {
            for track in try EmbeddedSubtitles.read(path: inputPath, streams: converted) {
                let kind: SubtitleTrack.Kind = ["ass", "ssa"].contains(track.stream.codec) ? .styled : .text
                let events = track.events.map { SubtitleTrack.Event(start: $0.start, end: $0.end, style: $0.style, layer: 0, text: $0.text) }
                var kept = SubtitleTrack(kind: kind, header: track.header, events: events, language: track.stream.language, title: track.stream.title ?? "")
                kept.isDefault = track.stream.isDefault
                kept.isForced = track.stream.isForced
                try add(kept, bounded: false, size: size, path: outputPath)
                warnings.append(.subtitleConverted(index: track.stream.index, from: track.stream.codec, to: report[report.count - 1].codec))
            }
        }
        for track in kept { try add(track, bounded: true, size: size, path: outputPath) }
        try output.writeHeader()
    }

    /// Milliseconds from the file's start to its end: the container's duration as checked
    /// against the streams (a header can lie, and an MP4 edit list counts its start offset in),
    /// else (a file written as a stream, without one) the end of its last packet. Both read
    /// packets, so they read a second opening of the file, not the one being copied.
    private static func mediaEnd(of path: String) throws -> Int? {
        let file = try InputFile(path: path)
        if let duration = file.durationClaim().duration { return Int((duration * 1000).rounded()) }
        // Each packet's end is taken before the next is read.
        return file.packets.compactMap(file.end(of:)).max()?.roundedMilliseconds
    }

    /// Whether the track keeps an event once held within the video (`WrittenEvents`); what
    /// that changes is said.
    private static func keeps(_ track: SubtitleTrack, end: Int?, warnings: inout [BurnWarning]) throws -> Bool {
        var events = WrittenEvents(track, bounded: true, end: end, oneAtATime: false)
        var kept = false
        while try events.next() != nil { kept = true }
        if events.cut > 0 { warnings.append(.eventTextCut(count: events.cut, characters: RenderLimits.maxEventCharacters)) }
        if let end, events.clamped + events.dropped > 0 {
            warnings.append(.cuesClamped(track: track.name, cut: events.clamped, dropped: events.dropped, videoEnd: Double(end) / 1000))
        }
        if !kept { warnings.append(.emptyTrackLeftOut(track: track.name)) }
        return kept
    }

    /// `bounded`: the track is one given, held within the video as `keeps` said.
    private func add(_ track: SubtitleTrack, bounded: Bool, size: (width: Int, height: Int), path: String) throws {
        var track = track
        let title = SubtitleTrack.menuTitle(track.title)
        if title != track.title {
            warnings.append(.titleCleaned(track: track.name, title: title))
            track.title = title
        }
        let codec: SubtitleCodec = output.isMOVFamily ? .movText : track.kind == .styled ? .ass : .subrip
        guard !output.refuses(codec) else { throw BurnError.subtitlesUnsupported(path: path, codec: codec.name) }
        let end = bounded ? expectedEnd : nil
        if codec == .movText {
            // mov_text reads only the styles its events name, but libavcodec splits the whole
            // header in time quadratic in its lines (100,000 styles never finish) and looks each
            // event's style up one by one: the header keeps the styles used, and those are bounded.
            var events = WrittenEvents(track, bounded: bounded, end: end, oneAtATime: true)
            var used: Set<String> = []
            while let event = try events.next() { used.insert(event.style) }
            if events.shortened > 0 { warnings.append(.subtitlesShortened(track: track.title, count: events.shortened)) }
            guard used.count <= Self.maxMovTextStyles else {
                throw MuxError.tooManyStyles(track: track.name, count: used.count, limit: Self.maxMovTextStyles)
            }
            // Default styles the track itself and any event whose style is missing.
            track.header = Self.header(track.header, keepingStyles: used.union(["Default"]))
        }
        let encoder = try SubtitleEncoder(codec, header: track.header, width: size.width, height: size.height, for: output, path: track.source ?? path)
        var tags: [(key: String, value: String)] = []
        // Matroska wants ISO 639-2/B ("fre"), MP4 ISO 639-2/T ("fra").
        let tag = track.language.flatMap { output.isMOVFamily ? $0.alpha3.first : $0.alpha3.last }
        if let tag { tags.append(("language", tag)) }
        if !track.title.isEmpty {
            tags.append(("title", track.title))
            // MP4 players list a track by its handler name.
            if output.isMOVFamily { tags.append(("handler_name", track.title)) }
        }
        let stream = try output.addStream(encodedBy: encoder, tags: tags, isDefault: track.isDefault, isForced: track.isForced)
        var events = WrittenEvents(track, bounded: bounded, end: end, oneAtATime: codec == .movText)
        let first = try events.next()
        added.append(AddedTrack(stream: stream, encoder: encoder, events: events, upcoming: first))
        report.append(MuxedTrack(codec: codec.name, languageTag: tag, title: track.title))
    }

    /// Far more than any script's styles (a film's fansub has under a hundred).
    static let maxMovTextStyles = 1000

    /// An ASS header without the `Style:` lines whose names are not in `names`.
    private static func header(_ header: String, keepingStyles names: Set<String>) -> String {
        let script = ASSDocument(parsing: header)
        let unused = Set(script.styles.filter { !names.contains($0["Name"] ?? "") }.map(\.line))
        return script.lines.indices.filter { !unused.contains($0) }.map { script.lines[$0] }.joined(separator: "\n") + "\n"
    }

    func run(cancellation: Cancellation?) throws -> MuxReport {
        var mediaEnd: Int64 = 0
        // A read error mid-file ends the input like EOF, as in burn-in.
        for packet in input.packets {
            if cancellation?.isCancelled == true { throw Cancelled() }
            if let time = input.time(of: packet) {
                // Subtitles go in ahead of the media around them, so the interleaver holds few packets.
                try writeSubtitles(until: time.roundedMilliseconds)
            }
            let kind = kinds[packet.streamIndex]
            if kind == .video || kind == .audio, let end = input.end(of: packet) {
                mediaEnd = max(mediaEnd, Int64(end.roundedMilliseconds))
            }
            _ = try copier.handle(packet)
        }
        // The demuxer ends a cut-off file as if it were whole.
        if let expectedEnd, Int64(expectedEnd) - mediaEnd > 500 {
            warnings.append(.truncated(decodedUntil: Double(mediaEnd) / 1000, expected: Double(expectedEnd) / 1000))
        }
        try copier.finish()
        try writeSubtitles(until: .max)
        if cancellation?.isCancelled == true { throw Cancelled() }
        try output.finish()
        return MuxReport(outputPath: output.path, added: report, warnings: copier.warnings + warnings)
    }

    private func writeSubtitles(until milliseconds: Int) throws {
        for i in added.indices {
            while let event = added[i].upcoming, event.start <= milliseconds {
                if let packet = try added[i].encoder.encode(
                    text: event.text, style: event.style, layer: event.layer, start: event.start, end: event.end, readOrder: added[i].written) {
                    try output.write(packet, encodedBy: added[i].encoder, to: added[i].stream)
                }
                added[i].written += 1
                added[i].upcoming = try added[i].events.next()
            }
        }
    }
}

/// A track being written: its stream, its encoder, and its events as they come.
private struct AddedTrack {
    let stream: Int
    let encoder: SubtitleEncoder
    var events: WrittenEvents
    /// The next event to write, and how many were written before it.
    var upcoming: SubtitleTrack.Event?
    var written = 0
}

/// A track's events as they are written, read from its spool one at a time: in order; for a
/// track given (`bounded`), their text within what a screen shows (libavcodec's text encoders
/// take time quadratic in an event's length) and within the video (those starting at or after
/// its `end` left out, those running past it ending there); for a 3GPP text track, which shows
/// one sample at a time (`oneAtATime`), without the notice (it is in the title) and each event
/// still on screen when the next starts ending there. Counts what it changed.
private struct WrittenEvents {
    private var source: SortedSpool<SubtitleTrack.Event>.Iterator
    private let bounded: Bool
    private let end: Int?
    private let oneAtATime: Bool
    /// The event after the one last returned, read ahead when one at a time.
    private var following: SubtitleTrack.Event?
    private var readAhead = false
    private(set) var cut = 0
    private(set) var clamped = 0
    private(set) var dropped = 0
    private(set) var shortened = 0

    init(_ track: SubtitleTrack, bounded: Bool, end: Int?, oneAtATime: Bool) {
        source = track.events.makeIterator()
        self.bounded = bounded
        self.end = end
        self.oneAtATime = oneAtATime
    }

    mutating func next() throws -> SubtitleTrack.Event? {
        guard oneAtATime else { return try kept() }
        if !readAhead {
            following = try shown()
            readAhead = true
        }
        guard var event = following else { return nil }
        following = try shown()
        if let next = following, event.end > next.start {
            event.end = next.start
            shortened += 1
        }
        return event
    }

    private mutating func shown() throws -> SubtitleTrack.Event? {
        while let event = try kept() {
            if !ASSDocument.isNotice(event.style) { return event }
        }
        return nil
    }

    private mutating func kept() throws -> SubtitleTrack.Event? {
        while var event = try source.next() {
            guard bounded else { return event }
            if let text = RenderLimits.cut(event.text) {
                event.text = text
                cut += 1
            }
            if let end, event.start >= end {
                dropped += 1
                continue
            }
            if let end, event.end > end {
                event.end = end
                clamped += 1
            }
            return event
        }
        return nil
    }
}
