import CapforgeCore
import CFFmpeg
import Foundation

public struct AudioStreamInfo: Codable, Sendable, Equatable {
    public var index: Int
    public var codec: String
    public var channels: Int
    public var sampleRate: Int
    /// The container's language tag as written (e.g. "eng"), if any.
    public var languageTag: String?
    /// The tag's language, if the tag names a known one.
    public var language: Language?
    public var title: String?
    public var isDefault: Bool
    /// Seconds from the stream's first sample to its end by its own length, when it states one:
    /// the audio there is to hear (a stream that starts ten hours in holds only its own length).
    public var length: Double?
    /// Where the stream ends by its own length, in seconds from the file's start time (where
    /// caption times count from); nil when it states no length.
    public var end: Double?

    /// The header claims a sample rate extraction refuses (`Resampler.plausibleRates`).
    public var hasImplausibleRate: Bool {
        sampleRate > 0 && !Resampler.plausibleRates.contains(Int32(clamping: sampleRate))
    }
}

public struct VideoStreamInfo: Codable, Sendable, Equatable {
    public var index: Int
    public var codec: String
    public var width: Int
    public var height: Int
    public var frameRate: Double?
    /// The container's hints disagree about the rate (its base rate against its average): the
    /// frames may not come at one rate, so `frameRate` is only the likeliest.
    public var variableFrameRate: Bool
    /// Clockwise degrees a player turns the picture (display-matrix side data): 0, 90, 180, 270.
    public var rotation: Int
    /// Where the stream ends by its own length, in seconds from the file's start time (where
    /// caption times count from); nil when it states no length.
    public var end: Double?

    /// The rotation with its convention, since tools disagree on the number: ffprobe prints the
    /// display matrix's counter-clockwise angle (90 where this is 270).
    public var rotationDescription: String {
        guard rotation != 0 else { return "no rotation" }
        let counterClockwise = (360 - rotation) % 360
        return "rotation \(rotation)° clockwise to display, shown \(displayWidth)x\(displayHeight)"
            + " (the display matrix's \(counterClockwise)° counter-clockwise: ffprobe says rotation=\(counterClockwise))"
    }

    /// The picture as players show it (width and height swap for a quarter turn); captions are
    /// laid out for this size.
    public var displayWidth: Int { rotation % 180 == 0 ? width : height }
    public var displayHeight: Int { rotation % 180 == 0 ? height : width }
}

/// What `capforge probe` reports about a file.
public struct MediaProbe: Codable, Sendable, Equatable {
    public var path: String
    public var container: String
    /// The file's length in seconds: the container's duration, or where its last packet ends
    /// when that contradicts the header (`durationClaim` says which, for a warning).
    public var duration: Double?
    public var durationClaim: DurationClaim
    /// The file's `start_time`: the origin of every time Capforge writes.
    public var startTime: Double
    public var audioStreams: [AudioStreamInfo]
    /// FFmpeg's best guess among the audio streams (`av_find_best_stream`), which
    /// `AudioStreamSelection.automatic` falls back to.
    public var bestAudioStream: Int?
    public var video: VideoStreamInfo?
    public var subtitleStreams: [SubtitleStreamInfo]

    public init(path: String) throws {
        let input = try InputFile(path: path)
        self.path = path
        container = String(cString: input.context.pointee.iformat.pointee.name)
        durationClaim = input.durationClaim()
        duration = durationClaim.duration
        startTime = Double(input.startTime) / Double(AV_TIME_BASE)
        audioStreams = input.audioStreams
        bestAudioStream = input.bestAudioStream
        subtitleStreams = input.subtitleStreams
        video = input.streams.first { $0.kind == .video && !$0.isAttachedPicture }.map { picture in
            let stream = input.stream(picture.index)
            let format = input.videoFormat(ofStream: picture.index)
            return VideoStreamInfo(
                index: picture.index, codec: picture.codec, width: format.width, height: format.height, frameRate: format.frameRate?.value,
                variableFrameRate: Self.ratesDisagree(stream.pointee.r_frame_rate, stream.pointee.avg_frame_rate),
                rotation: format.rotation, end: input.ownEnd(of: stream))
        }
    }

    /// The audio stream `selection` picks, as the extractor will pick it.
    public func audioStream(_ selection: AudioStreamSelection) throws -> AudioStreamInfo {
        try selection.stream(among: audioStreams, best: bestAudioStream, path: path)
    }

    /// Seconds of audio `selection`'s stream holds, for estimates: its own length, else the
    /// file's; nil when neither is known or the selection fails.
    public func audioSeconds(_ selection: AudioStreamSelection) -> Double? {
        ((try? audioStream(selection))?.length).map { min($0, duration ?? $0) } ?? duration
    }

    /// Where captions must end, in seconds from the file's start time: the later of the
    /// picture's end and the end of the audio `selection` picks (a player holds the last frame
    /// while the sound goes on: a still-image podcast has one frame and an hour of speech), never
    /// after the file's duration. nil when nothing states an end.
    public func mediaEnd(_ selection: AudioStreamSelection) -> Double? {
        let streamEnd = [video?.end, (try? audioStream(selection))?.end].compactMap { $0 }.max()
        return [streamEnd, duration].compactMap { $0 }.min()
    }

    /// Two rates, both known, more than 5 % apart (a millisecond time base rounds a constant
    /// rate's average by far less).
    static func ratesDisagree(_ a: AVRational, _ b: AVRational) -> Bool {
        guard a.num > 0, a.den > 0, b.num > 0, b.den > 0 else { return false }
        return abs(av_q2d(a) - av_q2d(b)) > 0.05 * max(av_q2d(a), av_q2d(b))
    }

    static func rotation(of stream: UnsafeMutablePointer<AVStream>) -> Int {
        var size = 0
        guard let matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size),
              size >= 9 * MemoryLayout<Int32>.size else { return 0 }
        let degrees = matrix.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
        guard degrees.isFinite else { return 0 }
        // The matrix stores counter-clockwise rotation; players turn the picture clockwise by its negation.
        let clockwise = Int((-degrees).rounded())
        return ((clockwise % 360) + 360) % 360
    }
}

extension InputFile {
    var audioStreams: [AudioStreamInfo] {
        (0..<streamCount).compactMap { index in
            let stream = self.stream(index)
            let par = stream.pointee.codecpar.pointee
            guard par.codec_type == AVMEDIA_TYPE_AUDIO else { return nil }
            let tag = metadata(stream, "language")
            return AudioStreamInfo(
                index: index, codec: String(cString: avcodec_get_name(par.codec_id)), channels: Int(par.ch_layout.nb_channels),
                sampleRate: Int(par.sample_rate), languageTag: tag, language: tag.flatMap(Language.init),
                title: metadata(stream, "title"),
                isDefault: stream.pointee.disposition & AV_DISPOSITION_DEFAULT != 0, length: ownLength(of: stream),
                end: ownEnd(of: stream))
        }
    }

    var bestAudioStream: Int? {
        let best = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        return best >= 0 ? Int(best) : nil
    }
}
