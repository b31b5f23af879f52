import CFFmpeg

/// Re-encodes an audio stream the output container cannot hold (e.g. PCM from .mov into MP4) to AAC,
/// keeping its start on the file's timeline.
package final class AudioReencoder {
    package let encoder: Encoder
    private let decoder: Decoder
    private let path: String
    private let streamTimeBase: AVRational
    private let origin: Int64
    private let sampleBase: AVRational
    private var converter: OpaquePointer?
    private let fifo: OpaquePointer
    private let decoded = Frame()
    private let converted = Frame()
    /// Next output sample's time, in samples on the file's timeline.
    private var nextPTS: Int64?

    /// Re-encodes stream `index` of `input` for `output`.
    package init(_ input: InputFile, stream index: Int, for output: OutputFile) throws {
        let path = input.path
        self.path = path
        origin = input.startTime
        streamTimeBase = input.stream(index).pointee.time_base
        decoder = try Decoder(input, stream: index)
        guard let aac = avcodec_find_encoder(AV_CODEC_ID_AAC) else { throw MediaError.encoderMissing(name: "aac") }
        let input = decoder.context
        let rate = input.pointee.sample_rate
        sampleBase = AVRational(num: 1, den: rate)
        encoder = try Encoder(codec: aac, path: path, globalHeader: output.wantsGlobalHeader) { ctx in
            ctx.pointee.sample_fmt = aac.pointee.sample_fmts?.pointee ?? AV_SAMPLE_FMT_FLTP
            ctx.pointee.sample_rate = rate
            ctx.pointee.time_base = AVRational(num: 1, den: rate)
            try copyChannelLayout(&input.pointee.ch_layout, into: &ctx.pointee.ch_layout, path: path)
        }
        guard let fifo = av_audio_fifo_alloc(encoder.context.pointee.sample_fmt, encoder.context.pointee.ch_layout.nb_channels, 4096) else {
            throw MediaError.library(path: path, operation: "buffering audio", code: shim_AVERROR(ENOMEM), message: "out of memory")
        }
        self.fifo = fifo
    }

    deinit {
        av_audio_fifo_free(fifo)
        var swr = converter
        swr_free(&swr)
    }

    /// Decodes a packet (nil flushes everything) and hands finished AAC packets to `sink`, in the encoder's time base.
    package func send(_ packet: Packet?, sink: (Packet) throws -> Void) throws {
        // Corrupt audio packets are skipped: the following ones keep their own timestamps.
        _ = try decoder.send(packet)
        drain: while true {
            switch try decoder.receive(into: decoded) {
            case .frame: break
            case .corrupt: continue drain
            case .needInput, .finished: break drain
            }
            defer { decoded.unref() }
            if nextPTS == nil {
                let start = decoded.timestamp.map { av_rescale_q($0, streamTimeBase, sampleBase) } ?? 0
                nextPTS = start - av_rescale_q(origin, shim_time_base_q(), sampleBase)
            }
            try convert(decoded.pointer)
            try encodeFull(sink: sink)
        }
        guard packet == nil else { return }
        if converter != nil { try convert(nil) }
        try encodeFull(sink: sink)
        let rest = av_audio_fifo_size(fifo)
        if rest > 0 { try encodeChunk(samples: rest, sink: sink) }
        try encoder.encode(nil, sink: sink)
    }

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        let swr = try converter ?? makeConverter(for: frame!)
        let capacity = swr_get_out_samples(swr, frame?.pointee.nb_samples ?? 0)
        guard capacity > 0 else { return }
        try prepare(converted, samples: capacity)
        let produced = swr_convert(
            swr, converted.pointer.pointee.extended_data,
            capacity, frame.map { shim_frame_extended_data_const($0) }, frame?.pointee.nb_samples ?? 0)
        try check(produced, "converting audio for AAC", path: path)
        try check(av_audio_fifo_write(fifo, shim_frame_extended_data_void(converted.pointer), produced), "buffering audio", path: path)
    }

    private func makeConverter(for frame: UnsafeMutablePointer<AVFrame>) throws -> OpaquePointer {
        var inLayout = AVChannelLayout()
        try copyChannelLayout(&frame.pointee.ch_layout, into: &inLayout, path: path)
        defer { av_channel_layout_uninit(&inLayout) }
        var swr: OpaquePointer? = nil
        let out = encoder.context
        try check(swr_alloc_set_opts2(
            &swr, &out.pointee.ch_layout, out.pointee.sample_fmt, out.pointee.sample_rate,
            &inLayout, AVSampleFormat(frame.pointee.format), frame.pointee.sample_rate, 0, nil), "configuring audio conversion", path: path)
        converter = swr
        try check(swr_init(swr), "starting audio conversion", path: path)
        return swr!
    }

    private func encodeFull(sink: (Packet) throws -> Void) throws {
        let size = encoder.context.pointee.frame_size
        while av_audio_fifo_size(fifo) >= size { try encodeChunk(samples: size, sink: sink) }
    }

    private func encodeChunk(samples: Int32, sink: (Packet) throws -> Void) throws {
        let chunk = Frame()
        try prepare(chunk, samples: samples)
        try check(av_audio_fifo_read(fifo, shim_frame_extended_data_void(chunk.pointer), samples), "buffering audio", path: path)
        chunk.pointer.pointee.pts = nextPTS ?? 0
        nextPTS = (nextPTS ?? 0) + Int64(samples)
        try encoder.encode(chunk, sink: sink)
    }

    private func prepare(_ frame: Frame, samples: Int32) throws {
        let out = encoder.context
        let f = frame.pointer
        if f.pointee.nb_samples >= samples, f.pointee.buf.0 != nil {
            try check(av_frame_make_writable(f), "buffering audio", path: path)
            f.pointee.nb_samples = samples
            return
        }
        av_frame_unref(f)
        f.pointee.format = out.pointee.sample_fmt.rawValue
        f.pointee.sample_rate = out.pointee.sample_rate
        f.pointee.nb_samples = samples
        try check(av_channel_layout_copy(&f.pointee.ch_layout, &out.pointee.ch_layout), "buffering audio", path: path)
        try check(av_frame_get_buffer(f, 0), "buffering audio", path: path)
    }
}
