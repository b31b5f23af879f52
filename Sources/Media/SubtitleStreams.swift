import CapforgeCore
import CFFmpeg
import Foundation

/// A subtitle stream as the container describes it.
public struct SubtitleStreamInfo: Codable, Sendable, Equatable {
    public var index: Int
    public var codec: String
    public var languageTag: String?
    public var language: Language?
    public var title: String?
    public var isDefault: Bool
    public var isForced: Bool
    /// Text (SRT, ASS, mov_text, WebVTT) rather than pictures (PGS, DVD): only text can be read back or converted.
    public var isText: Bool
}

/// One text subtitle stream decoded: every event on the file's timeline, as libavcodec gives it.
public struct EmbeddedSubtitleTrack: Sendable, Equatable {
    public struct Event: Sendable, Equatable {
        /// Milliseconds from the file's `start_time`.
        public var start: Int
        public var end: Int
        /// The ASS `Text` field: every text decoder in libavcodec speaks ASS (`\N` breaks, `{...}` overrides).
        public var text: String
        /// The ASS `Style` field (a text codec's events are all `Default`).
        public var style: String
    }

    public var stream: SubtitleStreamInfo
    /// The decoder's ASS header: for ASS, the script's own sections; for other codecs libavcodec's default.
    public var header: String
    public var events: [Event]
}

/// Reads the text subtitle tracks of a media file back through libavcodec's decoders.
public enum EmbeddedSubtitles {
    /// `streams`: the indices to read (default: every text subtitle stream).
    public static func read(path: String, streams wanted: Set<Int>? = nil) throws -> [EmbeddedSubtitleTrack] {
        let input = try InputFile(path: path)
        let infos = input.subtitleStreams.filter { $0.isText && (wanted?.contains($0.index) ?? true) }
        guard !infos.isEmpty else { return [] }
        var decoders: [Int: Decoder] = [:]
        var events: [Int: [EmbeddedSubtitleTrack.Event]] = [:]
        for info in infos { decoders[info.index] = try Decoder(stream: input.stream(info.index), path: path) }
        for index in 0..<input.streamCount where decoders[index] == nil { input.leaveOut(index) }

        // A read error mid-file ends the tracks like EOF: what was read is what the file holds.
        for packet in input.packets {
            let index = packet.streamIndex
            guard let decoder = decoders[index] else { continue }
            let timeBase = input.stream(index).pointee.time_base
            events[index, default: []] += try decoder.decodeSubtitles(packet, timeBase: timeBase, origin: input.startTime)
        }
        return infos.map { info in
            EmbeddedSubtitleTrack(stream: info, header: decoders[info.index]!.subtitleHeader, events: events[info.index] ?? [])
        }
    }
}

/// Subtitles decode a packet at a time, outside the send/receive API the other media use.
extension Decoder {
    /// The decoder's ASS script header (libavcodec gives every text codec one).
    var subtitleHeader: String {
        guard let header = context.pointee.subtitle_header, context.pointee.subtitle_header_size > 0 else { return "" }
        return String(decoding: UnsafeBufferPointer(start: header, count: Int(context.pointee.subtitle_header_size)), as: UTF8.self)
    }

    /// The packet's events; a packet the decoder rejects as corrupt gives none.
    func decodeSubtitles(_ packet: Packet, timeBase: AVRational, origin: Int64) throws -> [EmbeddedSubtitleTrack.Event] {
        let p = packet.pointer.pointee
        guard p.pts != SHIM_AV_NOPTS_VALUE else { return [] }
        var subtitle = AVSubtitle()
        var got: Int32 = 0
        let code = avcodec_decode_subtitle2(context, &subtitle, &got, packet.pointer)
        if code == SHIM_AVERROR_INVALIDDATA { return [] }
        try check(code, "decoding subtitles", path: path)
        guard got != 0 else { return [] }
        defer { avsubtitle_free(&subtitle) }
        let milliseconds = AVRational(num: 1, den: 1000)
        let packetStart = av_rescale_q(p.pts, timeBase, milliseconds) - av_rescale_q(origin, shim_time_base_q(), milliseconds)
        let start = Int(packetStart) + Int(subtitle.start_display_time)
        let end = p.duration > 0
            ? Int(packetStart + av_rescale_q(p.duration, timeBase, milliseconds))
            : Int(packetStart) + Int(subtitle.end_display_time)
        return (0..<Int(subtitle.num_rects)).compactMap { i -> EmbeddedSubtitleTrack.Event? in
            guard let rect = subtitle.rects[i], rect.pointee.type == SUBTITLE_ASS, let ass = rect.pointee.ass else { return nil }
            // "ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text": the text keeps its commas.
            let fields = String(cString: ass).split(separator: ",", maxSplits: 8, omittingEmptySubsequences: false)
            guard fields.count == 9 else { return nil }
            return EmbeddedSubtitleTrack.Event(start: start, end: max(start, end), text: String(fields[8]), style: String(fields[2]))
        }
    }
}

extension InputFile {
    /// MP4 keeps a track's name as its handler name; FFmpeg's own ("SubtitleHandler") names nothing.
    private func namedHandler(_ stream: UnsafeMutablePointer<AVStream>) -> String? {
        metadata(stream, "handler_name").flatMap { $0.hasSuffix("Handler") ? nil : $0 }
    }

    package var subtitleStreams: [SubtitleStreamInfo] {
        (0..<streamCount).compactMap { index in
            let stream = self.stream(index)
            let par = stream.pointee.codecpar.pointee
            guard par.codec_type == AVMEDIA_TYPE_SUBTITLE else { return nil }
            let tag = metadata(stream, "language")
            let descriptor = avcodec_descriptor_get(par.codec_id)
            let isText = descriptor.map { $0.pointee.props & AV_CODEC_PROP_TEXT_SUB != 0 } ?? false
            return SubtitleStreamInfo(
                index: index, codec: String(cString: avcodec_get_name(par.codec_id)), languageTag: tag, language: tag.flatMap(Language.init),
                title: metadata(stream, "title") ?? namedHandler(stream), isDefault: stream.pointee.disposition & AV_DISPOSITION_DEFAULT != 0,
                isForced: stream.pointee.disposition & AV_DISPOSITION_FORCED != 0, isText: isText)
        }
    }
}
