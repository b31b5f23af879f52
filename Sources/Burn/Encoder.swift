import CFFmpeg
import Media

/// Owns an opened encoder context and the packets it produces.
final class Encoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let path: String
    private let packet = Packet()

    /// `configure` fills in the picture or sample parameters before the encoder opens. The context is
    /// allocated with the codec so its defaults apply (without them libx264 runs at 128 kb/s).
    init(codec: UnsafePointer<AVCodec>, path: String, globalHeader: Bool, configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void) throws {
        self.path = path
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw MediaError.library(path: path, operation: "allocating an encoder", code: shim_AVERROR(ENOMEM), message: "out of memory")
        }
        context = ctx
        try configure(ctx)
        if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try check(avcodec_open2(ctx, codec, nil), "opening the \(String(cString: codec.pointee.name)) encoder", path: path)
    }

    deinit {
        var ctx: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&ctx)
    }

    /// Sets a private option (e.g. libx264's `crf`); false when this encoder has no such option.
    static func setOption(_ name: String, _ value: String, on context: UnsafeMutablePointer<AVCodecContext>, path: String) throws -> Bool {
        let code = av_opt_set(context.pointee.priv_data, name, value, 0)
        if code == SHIM_AVERROR_OPTION_NOT_FOUND { return false }
        try check(code, "setting the encoder option \(name)=\(value)", path: path)
        return true
    }

    /// Encodes a frame (nil flushes) and hands each finished packet, in the encoder's time base, to `sink`.
    func encode(_ frame: UnsafeMutablePointer<AVFrame>?, sink: (Packet) throws -> Void) throws {
        let sent = avcodec_send_frame(context, frame)
        if sent != SHIM_AVERROR_EOF { try check(sent, "encoding", path: path) }
        while true {
            let code = avcodec_receive_packet(context, packet.pointer)
            if code == SHIM_AVERROR_EAGAIN || code == SHIM_AVERROR_EOF { return }
            try check(code, "encoding", path: path)
            defer { packet.unref() }
            try sink(packet)
        }
    }
}
