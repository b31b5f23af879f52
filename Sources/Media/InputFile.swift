import CFFmpeg
import Foundation

/// An opened, probed container (owns the `AVFormatContext`).
package final class InputFile {
    package let path: String
    package let context: UnsafeMutablePointer<AVFormatContext>

    package init(path: String) throws {
        try Self.checkIsReadableRegularFile(path)
        self.path = path
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        let opened = avformat_open_input(&ctx, path, nil, nil)
        guard opened >= 0, let ctx else {
            throw MediaError.unrecognised(path: path, reason: avErrorString(opened))
        }
        context = ctx
        // Fully initialised from here: a throw still runs deinit, which closes the context.
        let probed = avformat_find_stream_info(ctx, nil)
        if probed < 0 {
            throw MediaError.unrecognised(path: path, reason: avErrorString(probed))
        }
    }

    deinit {
        var ctx: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&ctx)
    }

    /// Opening a FIFO or device would block or misbehave inside libavformat, and its errors
    /// for directories and permissions are vague; catch those cases first.
    private static func checkIsReadableRegularFile(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw MediaError.notFound(path: path) }
            throw MediaError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw MediaError.notAFile(path: path, kind: "directory")
        case S_IFIFO: throw MediaError.notAFile(path: path, kind: "named pipe")
        case S_IFSOCK: throw MediaError.notAFile(path: path, kind: "socket")
        default: throw MediaError.notAFile(path: path, kind: "device")
        }
        guard access(path, R_OK) == 0 else {
            throw MediaError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if info.st_size == 0 { throw MediaError.empty(path: path) }
    }

    package var streamCount: Int { Int(context.pointee.nb_streams) }

    package func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> {
        context.pointee.streams[index]!
    }

    /// The file's time origin (`start_time`) in AV_TIME_BASE units; 0 when unknown.
    package var startTime: Int64 {
        let start = context.pointee.start_time
        return start == SHIM_AV_NOPTS_VALUE ? 0 : start
    }

    /// Container duration in seconds, when the container knows it.
    package var duration: Double? {
        let d = context.pointee.duration
        return d == SHIM_AV_NOPTS_VALUE || d <= 0 ? nil : Double(d) / Double(AV_TIME_BASE)
    }

    package func metadata(_ stream: UnsafeMutablePointer<AVStream>, _ key: String) -> String? {
        guard let entry = av_dict_get(stream.pointee.metadata, key, nil, 0), let value = entry.pointee.value else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// Where the stream should end, in seconds on the file's timeline, when the container says.
    /// Truncated files end early without an error, so readers compare against this.
    package func expectedEnd(of stream: UnsafeMutablePointer<AVStream>) -> Double? {
        let tb = stream.pointee.time_base
        let start = stream.pointee.start_time == SHIM_AV_NOPTS_VALUE ? 0 : stream.pointee.start_time
        let streamStart = Double(av_rescale_q(start, tb, shim_time_base_q()) - startTime) / Double(AV_TIME_BASE)
        if stream.pointee.duration != SHIM_AV_NOPTS_VALUE, stream.pointee.duration > 0 {
            return streamStart + Double(av_rescale_q(stream.pointee.duration, tb, shim_time_base_q())) / Double(AV_TIME_BASE)
        }
        // Matroska keeps each track's length in a DURATION tag (a soundtrack may end before the
        // picture); else the container's duration. Muxers write either the length or the last
        // timestamp there, which differ by a large start offset: the smaller reading never
        // reports a whole file as cut.
        let origin = Double(startTime) / Double(AV_TIME_BASE)
        let tagged = metadata(stream, "DURATION").flatMap(Self.seconds(ofClock:))
        guard let length = tagged ?? duration else { return nil }
        let fromStart = (tagged == nil ? 0 : streamStart) + length
        return origin > 0 && length > origin ? min(fromStart, length - origin) : fromStart
    }

    /// "01:02:03.500000000" in seconds.
    package static func seconds(ofClock text: String) -> Double? {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let s = Double(parts[2]) else { return nil }
        return h * 3600 + m * 60 + s
    }
}
