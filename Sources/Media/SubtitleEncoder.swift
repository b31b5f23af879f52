import CapforgeCore
import CFFmpeg
import Foundation

/// The subtitle codecs a track is written in: MP4's 3GPP text, SubRip or ASS (Matroska).
package enum SubtitleCodec: Sendable {
    case movText, subrip, ass

    var id: AVCodecID {
        switch self {
        case .movText: AV_CODEC_ID_MOV_TEXT
        case .subrip: AV_CODEC_ID_SUBRIP
        case .ass: AV_CODEC_ID_ASS
        }
    }

    /// FFmpeg's name ("mov_text").
    package var name: String { String(cString: avcodec_get_name(id)) }
}

/// Owns a libavcodec subtitle encoder opened with a track's ASS header.
package final class SubtitleEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    private let path: String
    /// libavcodec writes into a caller's buffer, sized for the longest event so far: 64 tracks
    /// do not each hold the megabyte FFmpeg's CLI gives every subtitle stream.
    private var buffer: [UInt8] = []

    static let timeBase = AVRational(num: 1, den: 1000)

    /// `path` names the track's file in the encoder's complaints (they are about its text).
    package init(_ subtitleCodec: SubtitleCodec, header: String, width: Int, height: Int, for output: OutputFile, path: String) throws {
        self.path = path
        let name = subtitleCodec.name
        guard let codec = avcodec_find_encoder(subtitleCodec.id) else { throw MediaError.encoderMissing(name: name) }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw MediaError.library(path: path, operation: "allocating a subtitle encoder", code: shim_AVERROR(ENOMEM), message: "out of memory")
        }
        context = ctx
        ctx.pointee.time_base = Self.timeBase
        ctx.pointee.width = Int32(width)
        ctx.pointee.height = Int32(height)
        if output.wantsGlobalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        // The context frees the header with av_free, so it must come from av_malloc.
        let bytes = Array(header.utf8)
        guard let copy = av_mallocz(bytes.count + 1)?.assumingMemoryBound(to: UInt8.self) else {
            throw MediaError.library(path: path, operation: "allocating a subtitle header", code: shim_AVERROR(ENOMEM), message: "out of memory")
        }
        copy.update(from: bytes, count: bytes.count)
        ctx.pointee.subtitle_header = copy
        ctx.pointee.subtitle_header_size = Int32(bytes.count)
        try check(avcodec_open2(ctx, codec, nil), "opening the \(name) encoder (is the track's ASS header valid?)", path: path)
    }

    deinit {
        var ctx: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&ctx)
    }

    /// One event (ASS text from `start` to `end` milliseconds, `readOrder`-th of its track) as
    /// a packet; nil when the encoder writes nothing for it.
    package func encode(text: String, style: String, layer: Int, start: Int, end: Int, readOrder: Int) throws -> Packet? {
        // The dialogue form every libavcodec text encoder reads since FFmpeg 3.
        let dialogue = "\(readOrder),\(layer),\(style),,0,0,0,,\(text)"
        // The longest expansion is an override turned into an HTML tag (SubRip's `{\\fs1}` →
        // `<font size="1"></font>`) or a 12-byte mov_text style record.
        let needed = 8 * dialogue.utf8.count + 4096
        if buffer.count < needed { buffer = [UInt8](repeating: 0, count: needed) }
        let size: Int32 = try dialogue.withCString { text in
            var rect = AVSubtitleRect()
            rect.type = SUBTITLE_ASS
            rect.ass = UnsafeMutablePointer(mutating: text)
            return try withUnsafeMutablePointer(to: &rect) { rectPointer in
                var rects: [UnsafeMutablePointer<AVSubtitleRect>?] = [rectPointer]
                return try rects.withUnsafeMutableBufferPointer { list in
                    var subtitle = AVSubtitle()
                    subtitle.num_rects = 1
                    subtitle.rects = list.baseAddress
                    subtitle.end_display_time = UInt32(max(0, end - start))
                    subtitle.pts = Int64(start) * 1000
                    let written = buffer.withUnsafeMutableBufferPointer { avcodec_encode_subtitle(context, $0.baseAddress, Int32($0.count), &subtitle) }
                    return try check(written, "encoding a subtitle at \(start) ms", path: path)
                }
            }
        }
        guard size > 0 else { return nil }
        let packet = Packet()
        try check(av_new_packet(packet.pointer, size), "allocating a subtitle packet", path: path)
        buffer.withUnsafeBufferPointer { packet.pointer.pointee.data.update(from: $0.baseAddress!, count: Int(size)) }
        packet.pointer.pointee.pts = Int64(start)
        packet.pointer.pointee.dts = Int64(start)
        packet.pointer.pointee.duration = Int64(max(0, end - start))
        return packet
    }
}
