import CFFmpeg

/// Owns an `AVPacket`.
package final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    package init() {
        pointer = av_packet_alloc()
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    package func unref() { av_packet_unref(pointer) }

    /// The input stream the packet was read from.
    package var streamIndex: Int { Int(pointer.pointee.stream_index) }
}

/// Owns an `AVFrame`.
package final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    package init() {
        pointer = av_frame_alloc()
    }

    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&f)
    }

    package func unref() { av_frame_unref(pointer) }

    package var width: Int { Int(pointer.pointee.width) }
    package var height: Int { Int(pointer.pointee.height) }

    /// The frame's time in its stream's time base, preferring the decoder's best guess.
    var timestamp: Int64? {
        let best = pointer.pointee.best_effort_timestamp
        if best != SHIM_AV_NOPTS_VALUE { return best }
        let pts = pointer.pointee.pts
        return pts == SHIM_AV_NOPTS_VALUE ? nil : pts
    }
}

/// Owns a decoder context opened for one stream.
package final class Decoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let path: String

    /// `threaded` uses FFmpeg's frame and slice threads; the decoder default is one thread.
    package convenience init(_ input: InputFile, stream index: Int, threaded: Bool = false) throws {
        try self.init(stream: input.stream(index), path: input.path, threaded: threaded)
    }

    init(stream: UnsafeMutablePointer<AVStream>, path: String, threaded: Bool = false) throws {
        self.path = path
        let parameters = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw MediaError.decoderMissing(path: path, codec: String(cString: avcodec_get_name(parameters.pointee.codec_id)))
        }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw MediaError.library(path: path, operation: "allocating a decoder", code: shim_AVERROR(ENOMEM), message: "out of memory")
        }
        context = ctx
        try check(avcodec_parameters_to_context(ctx, parameters), "reading codec parameters", path: path)
        ctx.pointee.pkt_timebase = stream.pointee.time_base
        if threaded {
            ctx.pointee.thread_count = 0
            ctx.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        }
        try check(avcodec_open2(ctx, codec, nil), "opening the \(String(cString: codec.pointee.name)) decoder", path: path)
    }

    deinit {
        var ctx: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&ctx)
    }

    /// Sends a packet (nil flushes). Returns false when the decoder rejected corrupt data.
    package func send(_ packet: Packet?) throws -> Bool {
        let code = avcodec_send_packet(context, packet?.pointer)
        if code == SHIM_AVERROR_INVALIDDATA { return false }
        if code == SHIM_AVERROR_EOF { return true }
        try check(code, "decoding", path: path)
        return true
    }

    package enum Receive { case frame, needInput, finished, corrupt }

    package func receive(into frame: Frame) throws -> Receive {
        let code = avcodec_receive_frame(context, frame.pointer)
        switch code {
        case 0: return .frame
        case SHIM_AVERROR_EAGAIN: return .needInput
        case SHIM_AVERROR_EOF: return .finished
        case SHIM_AVERROR_INVALIDDATA: return .corrupt
        default:
            throw MediaError.library(path: path, operation: "decoding", code: code, message: avErrorString(code))
        }
    }
}
