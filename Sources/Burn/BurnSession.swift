import CapforgeCore
import CFFmpeg
import Foundation
import Media

/// One burn from open to rename: the video is re-encoded with captions, the other streams copied
/// (or, for audio the container cannot hold, re-encoded to AAC).
final class BurnSession {
    private let input: InputFile
    private let output: OutputFile
    private let video: UnsafeMutablePointer<AVStream>
    private let decoder: Decoder
    private let adapter: PictureAdapter
    private let encoder: Encoder
    private let renderer: SubtitleRenderer
    private let blender: OverlayBlender
    private let videoIndex: Int
    private let copier: StreamCopier
    private var warnings: [BurnWarning] = []
    private let path: String
    /// Source frame duration in seconds, for the end of the last frame.
    private let frameSeconds: Double

    /// Frames between progress events.
    static let progressBatch = 30

    private var frames = 0
    private var corruptPackets = 0
    private var firstFrameTime: Double?
    private var lastFrameTime: Double?
    private var lastEncodedPTS: Int64?

    init(input inputPath: String, output outputPath: String, script: String, options: BurnOptions, outputPolicy: OutputPolicy) throws {
        path = inputPath
        let input = try InputFile(path: inputPath)
        self.input = input
        guard let videoIndex = (0..<input.streamCount).first(where: {
            let stream = input.stream($0)
            return stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO && stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
        }) else { throw BurnError.noVideo(path: inputPath) }
        let video = input.stream(videoIndex)
        self.video = video
        decoder = try Decoder(stream: video, path: inputPath, threaded: true)
        guard let codec = avcodec_find_encoder_by_name(options.codec) else { throw BurnError.encoderMissing(name: options.codec) }

        let par = video.pointee.codecpar.pointee
        let sourceFormat = AVPixelFormat(par.format)
        let fullRange = par.color_range == AVCOL_RANGE_JPEG || ColourMatrix.isJPEGFormat(sourceFormat)
        let rotation = MediaProbe.rotation(of: video)
        adapter = PictureAdapter(width: Int(par.width), height: Int(par.height), fullRange: fullRange, rotation: rotation, path: inputPath)
        blender = OverlayBlender(matrix: ColourMatrix(
            colorspace: par.color_space, range: par.color_range, pixelFormat: sourceFormat, width: Int(par.width), height: Int(par.height)))

        let rate = av_guess_frame_rate(input.context, video, nil)
        let hasRate = rate.num > 0 && rate.den > 0
        frameSeconds = hasRate ? av_q2d(av_inv_q(rate)) : 0
        var aspect = av_guess_sample_aspect_ratio(input.context, video, nil)
        if aspect.num > 0 && aspect.den > 0 && (rotation == 90 || rotation == 270) { aspect = av_inv_q(aspect) }

        output = try OutputFile(path: outputPath, policy: outputPolicy)
        var ignored: [String] = []
        let adapter = self.adapter
        encoder = try Encoder(codec: codec, path: outputPath, globalHeader: output.wantsGlobalHeader) { ctx in
            ctx.pointee.width = Int32(adapter.width)
            ctx.pointee.height = Int32(adapter.height)
            ctx.pointee.pix_fmt = adapter.format
            // Each frame's own timestamp is rescaled into this, so variable frame rates survive.
            ctx.pointee.time_base = hasRate ? av_inv_q(rate) : video.pointee.time_base
            if hasRate { ctx.pointee.framerate = rate }
            if aspect.num > 0 && aspect.den > 0 { ctx.pointee.sample_aspect_ratio = aspect }
            ctx.pointee.color_range = fullRange ? AVCOL_RANGE_JPEG : par.color_range
            ctx.pointee.color_primaries = par.color_primaries
            ctx.pointee.color_trc = par.color_trc
            ctx.pointee.colorspace = par.color_space
            if try !Encoder.setOption("crf", String(options.crf), on: ctx, path: outputPath) { ignored.append("crf") }
            if try !Encoder.setOption("preset", options.preset, on: ctx, path: outputPath) { ignored.append("preset") }
        }
        warnings += ignored.map { .encoderOptionIgnored(name: $0, encoder: options.codec) }

        let videoOut = try output.addStream()
        try check(avcodec_parameters_from_context(videoOut.pointee.codecpar, encoder.context), "configuring the output video", path: outputPath)
        videoOut.pointee.time_base = encoder.context.pointee.time_base
        videoOut.pointee.sample_aspect_ratio = encoder.context.pointee.sample_aspect_ratio
        if hasRate { videoOut.pointee.avg_frame_rate = rate }
        renderer = try SubtitleRenderer(
            script: script, width: adapter.width, height: adapter.height,
            pixelAspect: aspect.num > 0 && aspect.den > 0 ? av_q2d(aspect) : 0)
        self.videoIndex = videoIndex
        // Audio and subtitles are copied when the container can hold them, other video left
        // out: the captions are what was asked for.
        copier = StreamCopier(input: input, output: output)
        for index in 0..<input.streamCount where index != videoIndex {
            try copier.route(index, kinds: [AVMEDIA_TYPE_AUDIO, AVMEDIA_TYPE_SUBTITLE])
        }
        try output.writeHeader()
    }

    func run(cancellation: Cancellation?, progress: (BurnProgress) -> Void) throws -> BurnReport {
        let packet = Packet()
        let frame = Frame()
        let clock = ContinuousClock()
        let started = clock.now
        let duration = input.duration ?? 0

        func report() {
            let elapsed = (clock.now - started) / .seconds(1)
            let done = (lastFrameTime ?? 0) + frameSeconds
            progress(BurnProgress(
                fraction: duration > 0 ? min(1, max(0, done / duration)) : 0,
                framesPerSecond: elapsed > 0 ? Double(frames) / elapsed : 0, frames: frames))
        }

        func drainVideo() throws {
            while true {
                switch try decoder.receive(into: frame) {
                case .frame:
                    defer { av_frame_unref(frame.pointer) }
                    try burn(frame)
                case .corrupt: corruptPackets += 1
                case .needInput, .finished: return
                }
            }
        }

        while true {
            if cancellation?.isCancelled == true { throw Cancelled() }
            // A read error mid-file ends the input like EOF; the truncation check below reports it.
            guard av_read_frame(input.context, packet.pointer) >= 0 else { break }
            defer { packet.unref() }
            guard Int(packet.pointer.pointee.stream_index) == videoIndex else {
                _ = try copier.handle(packet)
                continue
            }
            if try !decoder.send(packet) { corruptPackets += 1; continue }
            let before = frames
            try drainVideo()
            if frames / Self.progressBatch != before / Self.progressBatch { report() }
        }
        _ = try decoder.send(nil)
        try drainVideo()
        try encoder.encode(nil) { try copier.write($0, from: encoder.context.pointee.time_base, to: 0, shift: 0) }
        try copier.finish()
        if cancellation?.isCancelled == true { throw Cancelled() }
        try output.finish()
        report()
        return finalReport()
    }

    private func finalReport() -> BurnReport {
        var all = warnings + copier.warnings
        if corruptPackets > 0 { all.append(.corruptPackets(count: corruptPackets)) }
        let end = (lastFrameTime ?? 0) + frameSeconds
        if let expected = input.expectedEnd(of: video, fileEnd: input.durationClaim().duration), expected - end > 0.5 {
            all.append(.truncated(decodedUntil: end, expected: expected))
        }
        return BurnReport(
            outputPath: output.path, frames: frames, duration: frames > 0 ? end - (firstFrameTime ?? 0) : 0,
            width: adapter.width, height: adapter.height, warnings: all)
    }

    /// Draws the captions on one decoded frame and encodes it.
    private func burn(_ frame: Frame) throws {
        let timeBase = video.pointee.time_base
        let sourceTime = frame.timestamp.map { av_rescale_q($0, timeBase, shim_time_base_q()) - input.startTime }
        var (picture, isDecoderFrame) = try adapter.adapt(frame)

        if let microseconds = sourceTime {
            // Integer time: a frame exactly at a cue's end must not count as inside it.
            let milliseconds = microseconds >= 0 ? microseconds / 1000 : (microseconds - 999) / 1000
            try renderer.render(atMilliseconds: milliseconds) { image in
                if isDecoderFrame {
                    picture = try adapter.writableCopy(of: picture)
                    isDecoderFrame = false
                }
                blender.blend(image, into: picture)
            }
            let seconds = Double(microseconds) / Double(AV_TIME_BASE)
            if firstFrameTime == nil { firstFrameTime = seconds }
            lastFrameTime = seconds
        }

        var pts = sourceTime.map { av_rescale_q($0, shim_time_base_q(), encoder.context.pointee.time_base) } ?? (lastEncodedPTS ?? -1) + 1
        // Rounding VFR timestamps into the encoder's time base can collide; encoders need them increasing.
        if let last = lastEncodedPTS, pts <= last { pts = last + 1 }
        lastEncodedPTS = pts
        picture.pointee.pts = pts
        // libx264 obeys a decoded frame's I/P/B type; the encoder should choose its own.
        picture.pointee.pict_type = AV_PICTURE_TYPE_NONE
        try encoder.encode(picture) { try copier.write($0, from: encoder.context.pointee.time_base, to: 0, shift: 0) }
        frames += 1
    }
}
