import CapforgeCore
import CFFmpeg
import Foundation
import Media

/// A muxer writing to the hidden temporary of an `AtomicFileWriter`; `finish` writes the
/// trailer and renames it into place, and dropping it unfinished leaves no file.
final class OutputFile {
    let context: UnsafeMutablePointer<AVFormatContext>
    let path: String
    private let writer: AtomicFileWriter

    init(path: String, policy: OutputPolicy) throws {
        self.path = path
        // The format comes from the final name: the temporary's suffix means nothing to FFmpeg.
        guard let format = av_guess_format(nil, path, nil) else { throw BurnError.unsupportedOutput(path: path) }
        writer = try AtomicFileWriter(URL(fileURLWithPath: path), policy: policy)
        guard let temporary = writer.temporaryURL?.path else { throw BurnError.unsupportedOutput(path: path) }
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        try check(avformat_alloc_output_context2(&ctx, format, nil, temporary), "preparing the output", path: path)
        guard let ctx else { throw BurnError.unsupportedOutput(path: path) }
        context = ctx
        // Fully initialised from here: a throw still runs deinit, which frees the context.
        if format.pointee.flags & AVFMT_NOFILE == 0 {
            try check(avio_open(&ctx.pointee.pb, temporary, AVIO_FLAG_WRITE), "opening the output for writing", path: path)
        }
    }

    deinit {
        if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    var format: UnsafePointer<AVOutputFormat> { UnsafePointer(context.pointee.oformat) }

    /// Encoders must put codec headers out of band (extradata) when the container wants them there.
    var wantsGlobalHeader: Bool { format.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    /// 1 when the container can hold the codec, 0 when not, negative when it does not say.
    func canHold(_ codec: AVCodecID) -> Int32 {
        // The MP4 muxer of FFmpeg 5.1 lists FLAC and TrueHD as supported but refuses to write them
        // without "experimental" compliance (the header fails), and players rarely read them there.
        if isMOVFamily && (codec == AV_CODEC_ID_FLAC || codec == AV_CODEC_ID_TRUEHD) { return 0 }
        return avformat_query_codec(format, codec, FF_COMPLIANCE_NORMAL)
    }

    var isMOVFamily: Bool {
        let name = String(cString: format.pointee.name)
        return ["mp4", "mov", "ipod", "ismv", "psp", "3gp", "3g2", "f4v"].contains(name)
    }

    /// Matroska carries attachments (an ASS track's fonts); MP4 and WebM do not.
    var holdsAttachments: Bool { String(cString: format.pointee.name) == "matroska" }

    func addStream() throws -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(context, nil) else {
            throw MediaError.library(path: path, operation: "adding an output stream", code: shim_AVERROR(ENOMEM), message: "out of memory")
        }
        return stream
    }

    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[index]! }

    func writeHeader() throws {
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        // Players can start an MP4 before it has downloaded only if the index comes first.
        if isMOVFamily { try check(av_dict_set(&options, "movflags", "+faststart", 0), "setting +faststart", path: path) }
        try check(avformat_write_header(context, &options), "writing the output header", path: path)
    }

    /// Takes the packet's data; timestamps must already be in the output stream's time base.
    func write(_ packet: Packet) throws {
        try check(av_interleaved_write_frame(context, packet.pointer), "writing to the output", path: path)
    }

    func finish() throws {
        try check(av_write_trailer(context), "finishing the output", path: path)
        try check(avio_closep(&context.pointee.pb), "closing the output", path: path)
        try writer.commit()
    }
}
