import CapforgeCore
import Foundation
import Media

/// One burn from open to rename: the video is re-encoded with captions, the other streams copied
/// (or, for audio the container cannot hold, re-encoded to AAC).
final class BurnSession {
    private let input: InputFile
    private let output: OutputFile
    private let videoIndex: Int
    private let decoder: Decoder
    private let adapter: PictureAdapter
    private let encoder: Encoder
    private let renderer: SubtitleRenderer
    private let blender: OverlayBlender
    private let copier: StreamCopier
    private var warnings: [BurnWarning] = []
    /// How long a source frame shows, for the end of the last one (zero when no rate is known).
    private let frameDuration: MediaTime

    /// Frames between progress events.
    static let progressBatch = 30

    private var frames = 0
    private var corruptPackets = 0
    private var firstFrameTime: MediaTime?
    private var lastFrameTime: MediaTime?

    init(input inputPath: String, output outputPath: String, script: String, options: BurnOptions, outputPolicy: OutputPolicy) throws {
        let input = try InputFile(path: inputPath)
        self.input = input
        guard let videoIndex = input.streams.first(where: { $0.kind == .video && !$0.isAttachedPicture })?.index else {
            throw BurnError.noVideo(path: inputPath)
        }
        self.videoIndex = videoIndex
        decoder = try Decoder(input, stream: videoIndex, threaded: true)
        let video = input.videoFormat(ofStream: videoIndex)
        adapter = PictureAdapter(video, path: inputPath)
        blender = OverlayBlender(matrix: ColourMatrix(video))
        frameDuration = video.frameRate.map { MediaTime(seconds: $0.inverse.value) } ?? .zero
        let quarterTurn = video.rotation == 90 || video.rotation == 270
        let aspect = video.sampleAspect.map { quarterTurn ? $0.inverse : $0 }

        output = try OutputFile(path: outputPath, policy: outputPolicy)
        encoder = try Encoder(video: VideoEncoding(
            codec: options.codec, picture: adapter, source: video, timeBase: video.frameRate?.inverse ?? video.timeBase,
            frameRate: video.frameRate, sampleAspect: aspect,
            options: [("crf", String(options.crf)), ("preset", options.preset)]), for: output)
        warnings += encoder.ignoredOptions.map { .encoderOptionIgnored(name: $0, encoder: options.codec) }
        _ = try output.addStream(encodedBy: encoder, frameRate: video.frameRate)
        renderer = try SubtitleRenderer(script: script, width: adapter.width, height: adapter.height, pixelAspect: aspect?.value ?? 0)
        // Audio and subtitles are copied when the container can hold them, other video left
        // out: the captions are what was asked for.
        copier = StreamCopier(input: input, output: output)
        for index in 0..<input.streamCount where index != videoIndex {
            try copier.route(index, kinds: [.audio, .subtitle])
        }
        try output.writeHeader()
    }

    func run(cancellation: Cancellation?, progress: (BurnProgress) -> Void) throws -> BurnReport {
        let clock = ContinuousClock()
        let started = clock.now
        let duration = input.duration ?? 0

        func report() {
            let elapsed = (clock.now - started) / .seconds(1)
            let done = ((lastFrameTime ?? .zero) + frameDuration).seconds
            progress(BurnProgress(
                fraction: duration > 0 ? min(1, max(0, done / duration)) : 0,
                framesPerSecond: elapsed > 0 ? Double(frames) / elapsed : 0, frames: frames))
        }

        // A read error mid-file ends the input like EOF; the truncation check below reports it.
        var framesBefore = frames
        corruptPackets = try input.decode(
            stream: videoIndex, with: decoder, cancellation: cancellation, otherStream: { _ = try copier.handle($0) },
            packetDecoded: {
                if frames / Self.progressBatch != framesBefore / Self.progressBatch { report() }
                framesBefore = frames
            },
            frame: burn)
        try encoder.encode(nil) { try output.write($0, encodedBy: encoder, to: 0) }
        try copier.finish()
        if cancellation?.isCancelled == true { throw Cancelled() }
        try output.finish()
        report()
        return finalReport()
    }

    private func finalReport() -> BurnReport {
        var all = warnings + copier.warnings
        if corruptPackets > 0 { all.append(.corruptPackets(count: corruptPackets)) }
        let end = ((lastFrameTime ?? .zero) + frameDuration).seconds
        if let expected = input.expectedEnd(ofStream: videoIndex, fileEnd: input.durationClaim().duration), expected - end > 0.5 {
            all.append(.truncated(decodedUntil: end, expected: expected))
        }
        return BurnReport(
            outputPath: output.path, frames: frames, duration: frames > 0 ? end - (firstFrameTime ?? .zero).seconds : 0,
            width: adapter.width, height: adapter.height, warnings: all)
    }

    /// Draws the captions on one decoded frame and encodes it.
    private func burn(_ frame: Frame) throws {
        let time = input.time(of: frame, stream: videoIndex)
        var (picture, isDecoderFrame) = try adapter.adapt(frame)
        if let time {
            try renderer.render(at: time) { image, coverage in
                if isDecoderFrame {
                    picture = try adapter.writableCopy(of: picture)
                    isDecoderFrame = false
                }
                blender.blend(image, coverage: coverage, into: picture)
            }
            if firstFrameTime == nil { firstFrameTime = time }
            lastFrameTime = time
        }
        try encoder.encode(picture: picture, at: time) { try output.write($0, encodedBy: encoder, to: 0) }
        frames += 1
    }
}
