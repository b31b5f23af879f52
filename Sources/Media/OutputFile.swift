import CapforgeCore
import CFFmpeg
import Foundation

/// A muxer writing to the hidden temporary of an `AtomicFileWriter`; `finish` writes the
/// trailer and renames it into place, and dropping it unfinished leaves no file.
package final class OutputFile {
    let context: UnsafeMutablePointer<AVFormatContext>
    package let path: String
    private let writer: AtomicFileWriter

    package init(path: String, policy: OutputPolicy) throws {
        self.path = path
        // The format comes from the final name: the temporary's suffix means nothing to FFmpeg.
        guard let format = av_guess_format(nil, path, nil) else { throw MediaError.unsupportedOutput(path: path) }
        writer = try AtomicFileWriter(URL(fileURLWithPath: path), policy: policy)
        guard let temporary = writer.temporaryURL?.path else { throw MediaError.unsupportedOutput(path: path) }
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        try check(avformat_alloc_output_context2(&ctx, format, nil, temporary), "preparing the output", path: path)
        guard let ctx else { throw MediaError.unsupportedOutput(path: path) }
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

    private var format: UnsafePointer<AVOutputFormat> { UnsafePointer(context.pointee.oformat) }

    /// FFmpeg's name for the container ("mp4", "matroska").
    package var formatName: String { String(cString: format.pointee.name) }

    /// Encoders must put codec headers out of band (extradata) when the container wants them there.
    var wantsGlobalHeader: Bool { format.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    package var isMOVFamily: Bool { Self.movFamily.contains(formatName) }

    private static let movFamily: Set = ["mp4", "mov", "ipod", "ismv", "psp", "3gp", "3g2", "f4v"]

    /// Matroska carries attachments (an ASS track's fonts); MP4 and WebM do not.
    package var holdsAttachments: Bool { formatName == "matroska" }

    /// The container says it cannot hold stream `index` of `input` as it is (one that does not
    /// say is tried).
    package func refuses(stream index: Int, of input: InputFile) -> Bool {
        Self.holds(format, input.stream(index).pointee.codecpar.pointee.codec_id) == 0
    }

    package func refuses(_ codec: SubtitleCodec) -> Bool {
        Self.holds(format, codec.id) == 0
    }

    /// Whether a Matroska output would hold stream `index` of `input`, for advice.
    package static func matroskaHolds(stream index: Int, of input: InputFile) -> Bool {
        av_guess_format("matroska", nil, nil).map { holds($0, input.stream(index).pointee.codecpar.pointee.codec_id) == 1 } ?? false
    }

    /// 1 when the container can hold the codec, 0 when not, negative when it does not say.
    private static func holds(_ format: UnsafePointer<AVOutputFormat>, _ codec: AVCodecID) -> Int32 {
        // The MP4 muxer of FFmpeg 5.1 lists FLAC and TrueHD as supported but refuses to write them
        // without "experimental" compliance (the header fails), and players rarely read them there.
        if movFamily.contains(String(cString: format.pointee.name)) && (codec == AV_CODEC_ID_FLAC || codec == AV_CODEC_ID_TRUEHD) { return 0 }
        return avformat_query_codec(format, codec, FF_COMPLIANCE_NORMAL)
    }

    /// A video stream of the output carries a `timecode` tag (copied with its stream's tags).
    package var hasTimecodeTaggedVideo: Bool {
        (0..<Int(context.pointee.nb_streams)).contains { index in
            let stream = self.stream(index)
            return stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO && av_dict_get(stream.pointee.metadata, "timecode", nil, 0) != nil
        }
    }

    private func addStream() throws -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(context, nil) else {
            throw MediaError.library(path: path, operation: "adding an output stream", code: shim_AVERROR(ENOMEM), message: "out of memory")
        }
        return stream
    }

    private func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[index]! }

    /// A stream for `index` of `input`'s packets as they are, with its tags and disposition.
    /// Returns the output stream's index.
    package func addCopy(of index: Int, from input: InputFile) throws -> Int {
        let source = input.stream(index)
        let out = try addStream(taggedLike: source, index: index)
        let par = source.pointee.codecpar!
        try check(avcodec_parameters_copy(out.pointee.codecpar, par), "copying stream \(index)", path: path)
        out.pointee.codecpar.pointee.codec_tag = keptTag(par)
        out.pointee.time_base = source.pointee.time_base
        out.pointee.avg_frame_rate = source.pointee.avg_frame_rate
        out.pointee.sample_aspect_ratio = source.pointee.sample_aspect_ratio
        return Int(out.pointee.index)
    }

    /// A stream for `index` of `input` re-encoded by `reencoder`, with its tags and disposition.
    package func addStream(reencoding index: Int, from input: InputFile, by reencoder: AudioReencoder) throws -> Int {
        let out = try addStream(taggedLike: input.stream(index), index: index)
        try check(avcodec_parameters_from_context(out.pointee.codecpar, reencoder.encoder.context), "configuring the output audio", path: path)
        out.pointee.time_base = reencoder.encoder.timeBase
        return Int(out.pointee.index)
    }

    private func addStream(taggedLike source: UnsafeMutablePointer<AVStream>, index: Int) throws -> UnsafeMutablePointer<AVStream> {
        let out = try addStream()
        try check(av_dict_copy(&out.pointee.metadata, source.pointee.metadata, 0), "copying stream \(index)'s tags", path: path)
        out.pointee.disposition = source.pointee.disposition
        return out
    }

    /// The stream of a video encoder's pictures.
    package func addStream(encodedBy encoder: Encoder, frameRate: Rational?) throws -> Int {
        let out = try addStream()
        try check(avcodec_parameters_from_context(out.pointee.codecpar, encoder.context), "configuring the output video", path: path)
        out.pointee.time_base = encoder.timeBase
        out.pointee.sample_aspect_ratio = encoder.context.pointee.sample_aspect_ratio
        if let frameRate { out.pointee.avg_frame_rate = frameRate.av }
        return Int(out.pointee.index)
    }

    /// A subtitle track of `encoder`'s events, with `tags` ("language", "title") set.
    package func addStream(encodedBy encoder: SubtitleEncoder, tags: [(key: String, value: String)], isDefault: Bool, isForced: Bool) throws -> Int {
        let out = try addStream()
        try check(avcodec_parameters_from_context(out.pointee.codecpar, encoder.context), "configuring a subtitle track", path: path)
        out.pointee.time_base = SubtitleEncoder.timeBase
        for tag in tags {
            try check(av_dict_set(&out.pointee.metadata, tag.key, tag.value, 0), "setting a subtitle track's \(tag.key)", path: path)
        }
        out.pointee.disposition = (isDefault ? AV_DISPOSITION_DEFAULT : 0) | (isForced ? AV_DISPOSITION_FORCED : 0)
        return Int(out.pointee.index)
    }

    /// The source's codec tag where it names the same codec in the output container, or the
    /// container has no tag of its own for the codec (Matroska stores raw video only under its
    /// FourCC), as FFmpeg's CLI keeps it; else 0, and the muxer picks its own.
    private func keptTag(_ par: UnsafeMutablePointer<AVCodecParameters>) -> UInt32 {
        guard let tags = format.pointee.codec_tag else { return par.pointee.codec_tag }
        var own: UInt32 = 0
        let sameCodec = av_codec_get_id(tags, par.pointee.codec_tag) == par.pointee.codec_id
        return sameCodec || av_codec_get_tag2(tags, par.pointee.codec_id, &own) == 0 ? par.pointee.codec_tag : 0
    }

    package func writeHeader() throws {
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        // Players can start an MP4 before it has downloaded only if the index comes first.
        if isMOVFamily { try check(av_dict_set(&options, "movflags", "+faststart", 0), "setting +faststart", path: path) }
        try check(avformat_write_header(context, &options), "writing the output header", path: path)
    }

    /// Writes a packet read from `input` to output stream `out`, moved by the file's start time
    /// so the output starts at zero in sync.
    package func copy(_ packet: Packet, from input: InputFile, to out: Int) throws {
        let source = input.stream(packet.streamIndex)
        let shift = av_rescale_q(input.startTime, shim_time_base_q(), source.pointee.time_base)
        try write(packet, from: source.pointee.time_base, to: out, shift: shift)
    }

    package func write(_ packet: Packet, encodedBy encoder: Encoder, to out: Int) throws {
        try write(packet, from: encoder.timeBase, to: out, shift: 0)
    }

    package func write(_ packet: Packet, encodedBy encoder: SubtitleEncoder, to out: Int) throws {
        try write(packet, from: SubtitleEncoder.timeBase, to: out, shift: 0)
    }

    /// Takes the packet's data: its times, in `timeBase`, `shift` earlier, become the output stream's.
    private func write(_ packet: Packet, from timeBase: AVRational, to out: Int, shift: Int64) throws {
        let p = packet.pointer
        // A damaged timestamp the shift would overflow is dropped; the muxer then says what it wants.
        func shifted(_ time: Int64) -> Int64 {
            guard time != SHIM_AV_NOPTS_VALUE, case let (moved, overflow) = time.subtractingReportingOverflow(shift), !overflow else { return SHIM_AV_NOPTS_VALUE }
            return moved
        }
        p.pointee.pts = shifted(p.pointee.pts)
        p.pointee.dts = shifted(p.pointee.dts)
        av_packet_rescale_ts(p, timeBase, stream(out).pointee.time_base)
        p.pointee.stream_index = Int32(out)
        p.pointee.pos = -1
        try check(av_interleaved_write_frame(context, p), "writing to the output", path: path)
    }

    package func finish() throws {
        try check(av_write_trailer(context), "finishing the output", path: path)
        try check(avio_closep(&context.pointee.pb), "closing the output", path: path)
        try writer.commit()
    }
}
