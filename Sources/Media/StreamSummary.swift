import CFFmpeg

/// What copying or re-encoding an input stream needs to know of it.
package struct StreamSummary: Sendable, Equatable {
    package enum Kind: Sendable, Hashable { case video, audio, subtitle, attachment, data, other }

    package var index: Int
    package var kind: Kind
    /// FFmpeg's codec name ("h264", "pcm_s16le"; "none" for a codec it does not know).
    package var codec: String
    package var isKnownCodec: Bool
    package var hasDecoder: Bool
    /// Cover art, not the picture.
    package var isAttachedPicture: Bool
    /// A QuickTime timecode track ('tmcd'), which FFmpeg has no codec to copy as a stream.
    package var isTimecodeTrack: Bool
    package var width: Int
    package var height: Int
}

extension InputFile {
    package var streams: [StreamSummary] { (0..<streamCount).map(summary(ofStream:)) }

    package func summary(ofStream index: Int) -> StreamSummary {
        let stream = self.stream(index)
        let par = stream.pointee.codecpar.pointee
        let kind: StreamSummary.Kind = switch par.codec_type {
        case AVMEDIA_TYPE_VIDEO: .video
        case AVMEDIA_TYPE_AUDIO: .audio
        case AVMEDIA_TYPE_SUBTITLE: .subtitle
        case AVMEDIA_TYPE_ATTACHMENT: .attachment
        case AVMEDIA_TYPE_DATA: .data
        default: .other
        }
        return StreamSummary(
            index: index, kind: kind, codec: String(cString: avcodec_get_name(par.codec_id)),
            isKnownCodec: par.codec_id != AV_CODEC_ID_NONE, hasDecoder: avcodec_find_decoder(par.codec_id) != nil,
            isAttachedPicture: stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0,
            isTimecodeTrack: kind == .data && par.codec_tag == Self.timecodeTag,
            width: Int(par.width), height: Int(par.height))
    }

    /// 'tmcd', the handler of a QuickTime timecode track.
    private static let timecodeTag: UInt32 = 0x6463_6D74

    /// Stops the demuxer returning the stream's packets.
    package func leaveOut(_ index: Int) {
        stream(index).pointee.discard = AVDISCARD_ALL
    }
}
