import CapforgeCore
import CFFmpeg
import Foundation
import Media

/// The input streams a new file carries over untouched: each packet copied as it is (audio the
/// container cannot hold re-encoded to AAC, said as a warning), every stream moved by the file's
/// start time so the output starts at zero in sync. Burn-in and muxing share it.
final class StreamCopier {
    private enum Route {
        case copy(output: Int)
        case reencode(output: Int, AudioReencoder)
    }

    let input: InputFile
    let output: OutputFile
    private var routes: [Int: Route] = [:]
    private var routingWarnings: [BurnWarning] = []
    /// Input QuickTime timecode tracks, which are never copied as streams (see `warnings`).
    private var timecodeTracks: [Int] = []

    init(input: InputFile, output: OutputFile) {
        self.input = input
        self.output = output
    }

    /// What was left out or converted. A timecode track is left out only when the output does
    /// not carry it: the MOV and MP4 muxers write one again from the `timecode` tag of a video
    /// stream copied with its tags (FFmpeg has no codec to copy it as a stream).
    var warnings: [BurnWarning] {
        let tagged = (0..<Int(output.context.pointee.nb_streams)).contains { index in
            let stream = output.stream(index)
            return stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO && av_dict_get(stream.pointee.metadata, "timecode", nil, 0) != nil
        }
        let rewritten = tagged && ["mov", "mp4"].contains(String(cString: output.format.pointee.name))
        return routingWarnings + (rewritten ? [] : timecodeTracks.map { .timecodeLeftOut(index: $0, tagKept: tagged) })
    }

    /// Routes stream `index` when `kinds` has its type and the container can hold it (or, for
    /// audio, hold it once converted); otherwise it is left out with a warning. True when routed.
    @discardableResult
    func route(_ index: Int, kinds: Set<AVMediaType>) throws -> Bool {
        let stream = input.stream(index)
        let par = stream.pointee.codecpar!
        let type = par.pointee.codec_type
        let codecName = String(cString: avcodec_get_name(par.pointee.codec_id))
        if type == AVMEDIA_TYPE_DATA && par.pointee.codec_tag == Self.timecodeTag {
            stream.pointee.discard = AVDISCARD_ALL
            timecodeTracks.append(index)
            return false
        }
        let holds = type == AVMEDIA_TYPE_ATTACHMENT ? (output.holdsAttachments ? 1 : 0) : output.canHold(par.pointee.codec_id)
        let known = par.pointee.codec_id != AV_CODEC_ID_NONE
        let convertible = type == AVMEDIA_TYPE_AUDIO && avcodec_find_decoder(par.pointee.codec_id) != nil
        guard known, kinds.contains(type), holds != 0 || convertible else {
            stream.pointee.discard = AVDISCARD_ALL
            routingWarnings.append(known ? .streamDropped(index: index, codec: codecName) : .unknownStreamDropped(index: index))
            return false
        }
        let out = try output.addStream()
        try check(av_dict_copy(&out.pointee.metadata, stream.pointee.metadata, 0), "copying stream \(index)'s tags", path: output.path)
        out.pointee.disposition = stream.pointee.disposition
        if holds == 0 {
            let reencoder = try AudioReencoder(stream: stream, origin: input.startTime, globalHeader: output.wantsGlobalHeader, path: input.path)
            try check(avcodec_parameters_from_context(out.pointee.codecpar, reencoder.encoder.context), "configuring the output audio", path: output.path)
            out.pointee.time_base = reencoder.encoder.context.pointee.time_base
            routes[index] = .reencode(output: Int(out.pointee.index), reencoder)
            routingWarnings.append(.audioReencoded(index: index, from: codecName))
        } else {
            try check(avcodec_parameters_copy(out.pointee.codecpar, par), "copying stream \(index)", path: output.path)
            out.pointee.codecpar.pointee.codec_tag = keptTag(par)
            out.pointee.time_base = stream.pointee.time_base
            out.pointee.avg_frame_rate = stream.pointee.avg_frame_rate
            out.pointee.sample_aspect_ratio = stream.pointee.sample_aspect_ratio
            routes[index] = .copy(output: Int(out.pointee.index))
        }
        return true
    }

    /// 'tmcd', the handler of a QuickTime timecode track.
    private static let timecodeTag: UInt32 = 0x6463_6D74

    /// The source's codec tag where it names the same codec in the output container, or the
    /// container has no tag of its own for the codec (Matroska stores raw video only under its
    /// FourCC), as FFmpeg's CLI keeps it; else 0, and the muxer picks its own.
    private func keptTag(_ par: UnsafeMutablePointer<AVCodecParameters>) -> UInt32 {
        guard let tags = output.format.pointee.codec_tag else { return par.pointee.codec_tag }
        var own: UInt32 = 0
        let sameCodec = av_codec_get_id(tags, par.pointee.codec_tag) == par.pointee.codec_id
        return sameCodec || av_codec_get_tag2(tags, par.pointee.codec_id, &own) == 0 ? par.pointee.codec_tag : 0
    }

    /// Writes the packet when its stream is routed; false when it is not.
    func handle(_ packet: Packet) throws -> Bool {
        switch routes[Int(packet.pointer.pointee.stream_index)] {
        case .copy(let out):
            let source = input.stream(Int(packet.pointer.pointee.stream_index))
            let shift = av_rescale_q(input.startTime, shim_time_base_q(), source.pointee.time_base)
            try write(packet, from: source.pointee.time_base, to: out, shift: shift)
        case .reencode(let out, let reencoder):
            try reencoder.send(packet) { try write($0, from: reencoder.encoder.context.pointee.time_base, to: out, shift: 0) }
        case nil:
            return false
        }
        return true
    }

    /// Drains the audio re-encoders at the end of the input.
    func finish() throws {
        for case .reencode(let out, let reencoder) in routes.values {
            try reencoder.send(nil) { try write($0, from: reencoder.encoder.context.pointee.time_base, to: out, shift: 0) }
        }
    }

    /// Writes a packet whose times are in `timeBase`, `shift` earlier, to output stream `out`.
    func write(_ packet: Packet, from timeBase: AVRational, to out: Int, shift: Int64) throws {
        let p = packet.pointer
        if p.pointee.pts != SHIM_AV_NOPTS_VALUE { p.pointee.pts -= shift }
        if p.pointee.dts != SHIM_AV_NOPTS_VALUE { p.pointee.dts -= shift }
        av_packet_rescale_ts(p, timeBase, output.stream(out).pointee.time_base)
        p.pointee.stream_index = Int32(out)
        p.pointee.pos = -1
        try output.write(packet)
    }
}
