import CFFmpeg
import CapforgeCore
import Foundation

/// Where the picture cuts, found as FFmpeg's `scdet` filter finds it: for each frame, the mean
/// absolute difference of its luma from the frame before's (`scdet` looks at the luma alone
/// in a Y'CbCr picture), in percent of full scale (`mafd`); its score is the smaller of that and how much it changed since the frame before
/// (a steady pan differs from frame to frame, but evenly); a score at or over the threshold is
/// a change. The video is decoded once, every frame, with FFmpeg's threads.
public enum ShotChangeDetector {
    /// `scdet`'s default threshold.
    public static let defaultThreshold = 10.0

    public struct Result: Codable, Sendable, Equatable {
        /// Seconds from the file's start, in order.
        public var changes: [Double]
        public var threshold: Double
        public var frames: Int
        /// The video's frame rate, as the container and codec say.
        public var frameRate: Double?
    }

    public static func detect(path: String, threshold: Double = defaultThreshold, cancellation: Cancellation = Cancellation()) throws -> Result {
        let input = try InputFile(path: path)
        guard let video = input.streams.first(where: { $0.kind == .video && !$0.isAttachedPicture }) else {
            throw MediaError.noVideo(path: path)
        }
        for stream in input.streams where stream.index != video.index { input.leaveOut(stream.index) }
        let format = input.videoFormat(ofStream: video.index)
        let decoder = try Decoder(input, stream: video.index, threaded: true)
        let adapter = PictureAdapter(format, path: path)
        var score = SceneScore()
        var changes: [Double] = []
        var frames = 0
        _ = try input.decode(stream: video.index, with: decoder, cancellation: cancellation) { frame in
            frames += 1
            let time = input.time(of: frame, stream: video.index)
            let picture = Luma.isNative(frame) ? frame : try adapter.adapt(frame).picture
            if let value = score.next(Luma(picture)), value >= threshold, let time { changes.append(time.seconds) }
        }
        return Result(changes: changes, threshold: threshold, frames: frames, frameRate: format.frameRate?.value)
    }

    /// `scdet`'s score, frame after frame: nil for the first frame and after a change of size.
    struct SceneScore {
        private var previous: [UInt8] = []
        private var previousSize: (Int, Int)?
        private var previousMAFD = 0.0

        mutating func next(_ luma: Luma) -> Double? {
            defer {
                previous = luma.copy()
                previousSize = (luma.width, luma.height)
            }
            guard let size = previousSize, size == (luma.width, luma.height) else { return nil }
            let mafd = Double(luma.sad(against: previous)) * 100 / Double(luma.width * luma.height) / 256
            let difference = abs(mafd - previousMAFD)
            previousMAFD = mafd
            return min(max(min(mafd, difference), 0), 100)
        }
    }

    /// The 8-bit luma plane of a decoded picture.
    struct Luma {
        let frame: Frame
        var width: Int { frame.width }
        var height: Int { frame.height }

        /// 8-bit Y'CbCr and grey pictures are scored as decoded, as `scdet` does; others after
        /// conversion to 4:2:0.
        static func isNative(_ frame: Frame) -> Bool {
            [AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P,
             AV_PIX_FMT_GRAY8].contains(AVPixelFormat(frame.pointer.pointee.format))
        }

        init(_ frame: Frame) { self.frame = frame }

        private var rows: (data: UnsafeMutablePointer<UInt8>, stride: Int) {
            (shim_frame_data(frame.pointer, 0)!, Int(shim_frame_linesize(frame.pointer, 0)))
        }

        func copy() -> [UInt8] {
            let (data, stride) = rows
            var copy = [UInt8](repeating: 0, count: width * height)
            copy.withUnsafeMutableBufferPointer { out in
                for row in 0..<height { (out.baseAddress! + row * width).update(from: data + row * stride, count: width) }
            }
            return copy
        }

        func sad(against previous: [UInt8]) -> UInt64 {
            let (data, stride) = rows
            var total: UInt64 = 0
            previous.withUnsafeBufferPointer { old in
                for row in 0..<height {
                    let line = data + row * stride, before = old.baseAddress! + row * width
                    var sum = 0
                    for x in 0..<width { sum += abs(Int(line[x]) - Int(before[x])) }
                    total += UInt64(sum)
                }
            }
            return total
        }
    }
}
