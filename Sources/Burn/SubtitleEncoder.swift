import CapforgeCore
import CFFmpeg
import Foundation
import Media

/// Owns a libavcodec subtitle encoder (mov_text, subrip or ass) opened with a track's ASS header.
final class SubtitleEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    private let path: String
    /// libavcodec writes into a caller's buffer, sized for the longest event so far: 64 tracks
    /// do not each hold the megabyte FFmpeg's CLI gives every subtitle stream.
    private var buffer: [UInt8] = []

    static let timeBase = AVRational(num: 1, den: 1000)

    init(codec id: AVCodecID, header: String, width: Int, height: Int, globalHeader: Bool, path: String) throws {
        self.path = path
        let name = String(cString: avcodec_get_name(id))
        guard let codec = avcodec_find_encoder(id) else { throw BurnError.encoderMissing(name: name) }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw MediaError.library(path: path, operation: "allocating a subtitle encoder", code: shim_AVERROR(ENOMEM), message: "out of memory")
        }
        context = ctx
        ctx.pointee.time_base = Self.timeBase
        ctx.pointee.width = Int32(width)
        ctx.pointee.height = Int32(height)
        if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
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

    /// One event as a packet timed in milliseconds; nil when the encoder writes nothing for it.
    func encode(_ event: SubtitleTrack.Event, readOrder: Int) throws -> Packet? {
        // The dialogue form every libavcodec text encoder reads since FFmpeg 3.
        let dialogue = "\(readOrder),\(event.layer),\(event.style),,0,0,0,,\(event.text)"
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
                    subtitle.end_display_time = UInt32(max(0, event.end - event.start))
                    subtitle.pts = Int64(event.start) * 1000
                    let written = buffer.withUnsafeMutableBufferPointer { avcodec_encode_subtitle(context, $0.baseAddress, Int32($0.count), &subtitle) }
                    return try check(written, "encoding a subtitle at \(event.start) ms", path: path)
                }
            }
        }
        guard size > 0 else { return nil }
        let packet = Packet()
        try check(av_new_packet(packet.pointer, size), "allocating a subtitle packet", path: path)
        buffer.withUnsafeBufferPointer { packet.pointer.pointee.data.update(from: $0.baseAddress!, count: Int(size)) }
        packet.pointer.pointee.pts = Int64(event.start)
        packet.pointer.pointee.dts = Int64(event.start)
        packet.pointer.pointee.duration = Int64(max(0, event.end - event.start))
        return packet
    }
}
