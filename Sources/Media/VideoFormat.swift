import CFFmpeg

/// A video stream's picture as the container and codec describe it: what adapting, drawing on
/// and encoding it again need.
package struct VideoFormat: Sendable {
    package enum Matrix: Sendable { case bt601, bt709, bt2020 }

    package var width: Int
    package var height: Int
    /// Full-range code values: tagged so, or in a "J" pixel format.
    package var fullRange: Bool
    /// The Y'CbCr matrix the stream is tagged with; nil when untagged.
    package var matrix: Matrix?
    /// Clockwise degrees a player turns the picture: 0, 90, 180, 270.
    package var rotation: Int
    /// The likeliest frame rate (`av_guess_frame_rate`); nil when nothing says.
    package var frameRate: Rational?
    /// The stream's or container's pixel aspect; nil when neither says.
    package var sampleAspect: Rational?
    package var timeBase: Rational
    /// The colour tags an encoder repeats for players.
    let range: AVColorRange
    let primaries: AVColorPrimaries
    let transfer: AVColorTransferCharacteristic
    let space: AVColorSpace

    static func isJPEGFormat(_ format: AVPixelFormat) -> Bool {
        [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P].contains(format)
    }

    static func matrix(_ space: AVColorSpace) -> Matrix? {
        switch space {
        case AVCOL_SPC_BT709: .bt709
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M, AVCOL_SPC_FCC: .bt601
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: .bt2020
        default: nil
        }
    }
}

extension InputFile {
    package func videoFormat(ofStream index: Int) -> VideoFormat {
        let stream = self.stream(index)
        let par = stream.pointee.codecpar.pointee
        let rate = Rational(av_guess_frame_rate(context, stream, nil))
        let aspect = Rational(av_guess_sample_aspect_ratio(context, stream, nil))
        return VideoFormat(
            width: Int(par.width), height: Int(par.height),
            fullRange: par.color_range == AVCOL_RANGE_JPEG || VideoFormat.isJPEGFormat(AVPixelFormat(par.format)),
            matrix: VideoFormat.matrix(par.color_space), rotation: MediaProbe.rotation(of: stream),
            frameRate: rate.isKnown ? rate : nil, sampleAspect: aspect.isKnown ? aspect : nil,
            timeBase: Rational(stream.pointee.time_base),
            range: par.color_range, primaries: par.color_primaries, transfer: par.color_trc, space: par.color_space)
    }
}
