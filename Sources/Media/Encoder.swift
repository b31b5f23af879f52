import CapforgeCore
import CFFmpeg

/// What a video encoder is opened with: the picture `PictureAdapter` makes, the source's colour
/// tags, and the user's codec and private options.
package struct VideoEncoding {
    package var codec: String
    package var picture: PictureAdapter
    package var source: VideoFormat
    /// Each frame's own time is rescaled into this, so variable frame rates survive.
    package var timeBase: Rational
    package var frameRate: Rational?
    package var sampleAspect: Rational?
    /// Private options by name (libx264's `crf`, `preset`); an encoder without one ignores it.
    package var options: [(name: String, value: String)]

    package init(codec: String, picture: PictureAdapter, source: VideoFormat, timeBase: Rational, frameRate: Rational?,
                 sampleAspect: Rational?, options: [(name: String, value: String)]) {
        self.codec = codec
        self.picture = picture
        self.source = source
        self.timeBase = timeBase
        self.frameRate = frameRate
        self.sampleAspect = sampleAspect
        self.options = options
    }
}

/// Owns an opened encoder context and the packets it produces.
package final class Encoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let path: String
    private let packet = Packet()
    /// The options of `VideoEncoding.options` this encoder does not have.
    package private(set) var ignoredOptions: [String] = []
    private var lastPictureTime: Int64?

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

    /// A video encoder for `output`'s container.
    package convenience init(video settings: VideoEncoding, for output: OutputFile) throws {
        guard let codec = avcodec_find_encoder_by_name(settings.codec) else { throw MediaError.encoderMissing(name: settings.codec) }
        var ignored: [String] = []
        let source = settings.source
        try self.init(codec: codec, path: output.path, globalHeader: output.wantsGlobalHeader) { ctx in
            ctx.pointee.width = Int32(settings.picture.width)
            ctx.pointee.height = Int32(settings.picture.height)
            ctx.pointee.pix_fmt = settings.picture.format
            ctx.pointee.time_base = settings.timeBase.av
            if let rate = settings.frameRate { ctx.pointee.framerate = rate.av }
            if let aspect = settings.sampleAspect { ctx.pointee.sample_aspect_ratio = aspect.av }
            ctx.pointee.color_range = source.fullRange ? AVCOL_RANGE_JPEG : source.range
            ctx.pointee.color_primaries = source.primaries
            ctx.pointee.color_trc = source.transfer
            ctx.pointee.colorspace = source.space
            for option in settings.options {
                if try !Self.setOption(option.name, option.value, on: ctx, path: output.path) { ignored.append(option.name) }
            }
        }
        ignoredOptions = ignored
    }

    deinit {
        var ctx: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&ctx)
    }

    var timeBase: AVRational { context.pointee.time_base }

    /// Sets a private option (e.g. libx264's `crf`); false when this encoder has no such option.
    private static func setOption(_ name: String, _ value: String, on context: UnsafeMutablePointer<AVCodecContext>, path: String) throws -> Bool {
        let code = av_opt_set(context.pointee.priv_data, name, value, 0)
        if code == SHIM_AVERROR_OPTION_NOT_FOUND { return false }
        try check(code, "setting the encoder option \(name)=\(value)", path: path)
        return true
    }

    /// Encodes a picture shown at `time` (nil: right after the last one).
    package func encode(picture: Frame, at time: MediaTime?, sink: (Packet) throws -> Void) throws {
        var pts = time.map { $0.ticks(in: timeBase) } ?? (lastPictureTime ?? -1) + 1
        // Rounding VFR timestamps into the encoder's time base can collide; encoders need them increasing.
        if let last = lastPictureTime, pts <= last { pts = last + 1 }
        lastPictureTime = pts
        picture.pointer.pointee.pts = pts
        // libx264 obeys a decoded frame's I/P/B type; the encoder should choose its own.
        picture.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        try encode(picture, sink: sink)
    }

    /// Encodes a frame (nil flushes) and hands each finished packet, in the encoder's time base, to `sink`.
    package func encode(_ frame: Frame?, sink: (Packet) throws -> Void) throws {
        let sent = avcodec_send_frame(context, frame?.pointer)
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
