import CFFmpeg

/// Turns decoded pictures into what the encoder takes and players show: 8-bit 4:2:0 (browsers
/// and H.264 profiles most players decode), even dimensions (4:2:0 needs them), upright.
package final class PictureAdapter {
    /// Full-range sources stay full range: yuvj420p is how libx264 is told so.
    let format: AVPixelFormat
    /// The encoded picture, after crop and rotation.
    package let width: Int
    package let height: Int
    let rotation: Int
    private let uprightWidth: Int
    private let uprightHeight: Int
    private let fullRange: Bool
    private let path: String
    private var scaler: (context: OpaquePointer, width: Int32, height: Int32, format: Int32)?
    private let converted = Frame()
    private let rotated = Frame()
    private let canvas = Frame()

    package init(_ source: VideoFormat, path: String) {
        let (sourceWidth, sourceHeight, fullRange, rotation) = (source.width, source.height, source.fullRange, source.rotation)
        self.fullRange = fullRange
        format = fullRange ? AV_PIX_FMT_YUVJ420P : AV_PIX_FMT_YUV420P
        // Odd sizes lose their last column/row: one pixel is invisible, and padding would add a visible edge.
        uprightWidth = sourceWidth & ~1
        uprightHeight = sourceHeight & ~1
        self.rotation = rotation
        self.path = path
        let quarterTurn = rotation == 90 || rotation == 270
        width = quarterTurn ? uprightHeight : uprightWidth
        height = quarterTurn ? uprightWidth : uprightHeight
    }

    deinit {
        if let scaler { sws_freeContext(scaler.context) }
    }

    /// The picture to draw on and encode: the decoded frame itself when it already fits
    /// (then `writableCopy` gives one to draw on), else one of ours, already writable.
    package func adapt(_ frame: Frame) throws -> (picture: Frame, isDecoderFrame: Bool) {
        var picture = frame
        var isDecoderFrame = true
        let f = picture.pointer.pointee
        if f.format != format.rawValue || Int(f.width) != uprightWidth || Int(f.height) != uprightHeight {
            try convert(picture.pointer, into: converted.pointer)
            picture = converted
            isDecoderFrame = false
        }
        if rotation != 0 {
            try prepare(rotated.pointer, width: width, height: height, like: picture.pointer)
            for plane in 0..<3 {
                let shift = plane == 0 ? 0 : 1
                PlaneRotation.rotate(
                    shim_frame_data(picture.pointer, Int32(plane)), stride: Int(shim_frame_linesize(picture.pointer, Int32(plane))),
                    width: uprightWidth >> shift, height: uprightHeight >> shift,
                    into: shim_frame_data(rotated.pointer, Int32(plane)), stride: Int(shim_frame_linesize(rotated.pointer, Int32(plane))),
                    clockwise: rotation)
            }
            picture = rotated
            isDecoderFrame = false
        }
        return (picture, isDecoderFrame)
    }

    /// A decoded picture copied into a buffer of ours. Decoded pictures share buffers with the
    /// decoder's reference frames, so drawing on them would corrupt later frames; reusing one
    /// buffer (the encoder has copied the previous picture by now) avoids fresh pages per frame.
    package func writableCopy(of picture: Frame) throws -> Frame {
        try prepare(canvas.pointer, width: picture.width, height: picture.height, like: picture.pointer)
        try check(av_frame_copy(canvas.pointer, picture.pointer), "preparing a frame for captions", path: path)
        return canvas
    }

    private func convert(_ source: UnsafeMutablePointer<AVFrame>, into target: UnsafeMutablePointer<AVFrame>) throws {
        // A picture one pixel wider or taller than the even size is cropped; any other size is scaled.
        var sourceWidth = source.pointee.width, sourceHeight = source.pointee.height
        if Int(sourceWidth) == uprightWidth + 1 { sourceWidth -= 1 }
        if Int(sourceHeight) == uprightHeight + 1 { sourceHeight -= 1 }
        let context = try scaler(width: sourceWidth, height: sourceHeight, format: source.pointee.format)
        try prepare(target, width: uprightWidth, height: uprightHeight, like: source)
        let scaled = sws_scale(
            context, shim_frame_planes_const(source), shim_frame_linesizes(source), 0, sourceHeight,
            shim_frame_planes(target), shim_frame_linesizes(target))
        try check(scaled, "converting the picture to 8-bit 4:2:0", path: path)
    }

    private func scaler(width: Int32, height: Int32, format sourceFormat: Int32) throws -> OpaquePointer {
        if let scaler, scaler.width == width, scaler.height == height, scaler.format == sourceFormat { return scaler.context }
        if let scaler { sws_freeContext(scaler.context) }
        scaler = nil
        guard let context = sws_getContext(
            width, height, AVPixelFormat(sourceFormat), Int32(uprightWidth), Int32(uprightHeight), format,
            SWS_BICUBIC, nil, nil, nil) else {
            let name = av_get_pix_fmt_name(AVPixelFormat(sourceFormat)).map { String(cString: $0) } ?? "format \(sourceFormat)"
            throw MediaError.library(path: path, operation: "converting \(name) video", code: shim_AVERROR(EINVAL), message: "unsupported pixel format")
        }
        if fullRange && !VideoFormat.isJPEGFormat(AVPixelFormat(sourceFormat)) {
            // Tagged full-range video in a non-"j" format: keep the code values' range through the conversion.
            let coefficients = sws_getCoefficients(SWS_CS_DEFAULT)
            guard sws_setColorspaceDetails(context, coefficients, 1, coefficients, 1, 0, 1 << 16, 1 << 16) >= 0 else {
                sws_freeContext(context)
                throw MediaError.library(path: path, operation: "converting full-range video", code: shim_AVERROR(EINVAL),
                                         message: "the scaler cannot keep full range for this format")
            }
        }
        scaler = (context, width, height, sourceFormat)
        return context
    }

    /// Sizes `target` and makes sure nothing else (such as the encoder) still holds its buffers.
    private func prepare(_ target: UnsafeMutablePointer<AVFrame>, width: Int, height: Int, like source: UnsafeMutablePointer<AVFrame>) throws {
        if target.pointee.buf.0 == nil {
            target.pointee.format = format.rawValue
            target.pointee.width = Int32(width)
            target.pointee.height = Int32(height)
            try check(av_frame_get_buffer(target, 0), "allocating a picture", path: path)
        }
        try check(av_frame_make_writable(target), "allocating a picture", path: path)
        try check(av_frame_copy_props(target, source), "copying picture properties", path: path)
    }
}
