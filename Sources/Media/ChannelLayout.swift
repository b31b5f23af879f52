import CFFmpeg

/// A frame's or codec's channel layout as the resampler needs it: layouts without a channel
/// order (e.g. WAV without a mask) get FFmpeg's default layout for their channel count.
/// The caller owns `target` and uninitialises it.
func copyChannelLayout(_ source: UnsafePointer<AVChannelLayout>, into target: UnsafeMutablePointer<AVChannelLayout>, path: String) throws {
    if source.pointee.order == AV_CHANNEL_ORDER_UNSPEC {
        av_channel_layout_default(target, source.pointee.nb_channels)
    } else {
        try check(av_channel_layout_copy(target, source), "reading the channel layout", path: path)
    }
}
