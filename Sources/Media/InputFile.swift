import CapforgeCore
import CFFmpeg
import Foundation

/// An opened, probed container (owns the `AVFormatContext`).
package final class InputFile {
    package let path: String
    let context: UnsafeMutablePointer<AVFormatContext>

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

    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> {
        context.pointee.streams[index]!
    }

    /// The file's time origin (`start_time`) in AV_TIME_BASE units; 0 when unknown.
    var startTime: Int64 {
        let start = context.pointee.start_time
        return start == SHIM_AV_NOPTS_VALUE ? 0 : start
    }

    /// Container duration in seconds, when the container knows it.
    package var duration: Double? {
        let d = context.pointee.duration
        return d == SHIM_AV_NOPTS_VALUE || d <= 0 ? nil : Double(d) / Double(AV_TIME_BASE)
    }

    func metadata(_ stream: UnsafeMutablePointer<AVStream>, _ key: String) -> String? {
        guard let entry = av_dict_get(stream.pointee.metadata, key, nil, 0), let value = entry.pointee.value else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// Where the stream should end, in seconds on the file's timeline: its own length, else the
    /// file's end (`fileEnd`, from `durationClaim()`). Truncated files end early without an
    /// error, so readers compare against this.
    package func expectedEnd(ofStream index: Int, fileEnd: Double?) -> Double? {
        ownEnd(of: stream(index)) ?? fileEnd
    }

    /// The stream's own length in seconds, from its first timestamp; nil when it states none.
    func ownLength(of stream: UnsafeMutablePointer<AVStream>) -> Double? {
        ownEnd(of: stream).map { max(0, $0 - start(of: stream)) }
    }

    /// The stream's first timestamp in seconds on the file's timeline (0 when unknown).
    private func start(of stream: UnsafeMutablePointer<AVStream>) -> Double {
        let start = stream.pointee.start_time == SHIM_AV_NOPTS_VALUE ? 0 : stream.pointee.start_time
        return (Double(av_rescale_q(start, stream.pointee.time_base, shim_time_base_q())) - Double(startTime)) / Double(AV_TIME_BASE)
    }

    /// Where the stream ends by its own length (Matroska's DURATION tag, else the stream's
    /// duration), in seconds on the file's timeline; nil when it states none. `independent`:
    /// only a length that is not the container's own duration copied in (libavformat gives
    /// streams without one the file's), so it can bear the container's claim out.
    func ownEnd(of stream: UnsafeMutablePointer<AVStream>, independent: Bool = false) -> Double? {
        let tb = stream.pointee.time_base
        let streamStart = start(of: stream)
        if let length = metadata(stream, "DURATION").flatMap(Self.seconds(ofClock:)) {
            // Muxers write either the length or the last timestamp (FFmpeg's Matroska muxer)
            // there, which differ by a start offset; an end before the stream's start is not the reading.
            let asEnd = length - Double(startTime) / Double(AV_TIME_BASE)
            return asEnd >= streamStart ? min(streamStart + length, asEnd) : streamStart + length
        }
        guard stream.pointee.duration != SHIM_AV_NOPTS_VALUE, stream.pointee.duration > 0 else { return nil }
        let length = av_rescale_q(stream.pointee.duration, tb, shim_time_base_q())
        let whole = context.pointee.duration
        if independent, whole != SHIM_AV_NOPTS_VALUE, (length - whole).magnitude <= UInt64(AV_TIME_BASE) / 1000 { return nil }
        return streamStart + Double(length) / Double(AV_TIME_BASE)
    }

    /// The ends on the file's timeline a container duration of `length` may mean: the length
    /// itself, or, where it exceeds the start offset, the last timestamp (an MP4 edit list's
    /// empty edit counts in the duration: startoffset.mp4 starts at 9.978 s and claims 13 s).
    private func claimReadings(_ length: Double) -> [Double] {
        let origin = Double(startTime) / Double(AV_TIME_BASE)
        return origin > 0 && length > origin ? [length, length - origin] : [length]
    }

    /// The container's duration, checked: borne out when a stream's own length ends where it
    /// says; otherwise the file's last packet is looked for (one seek near the end).
    package func durationClaim() -> DurationClaim {
        let ownEnds = (0..<streamCount).filter(isPicture(or:)).compactMap { ownEnd(of: stream($0), independent: true) }
        let streamsEnd = ownEnds.max()
        guard let claimed = duration else { return DurationClaim(claimed: nil, claimedEnd: nil, lastPacketEnd: nil, streamsAgree: false) }
        let readings = claimReadings(claimed)
        let reading = { (end: Double) in readings.first { abs($0 - end) <= DurationClaim.tolerance(end) } }
        if let streamsEnd, let confirmed = reading(streamsEnd) {
            return DurationClaim(claimed: claimed, claimedEnd: confirmed, lastPacketEnd: nil, streamsAgree: true)
        }
        guard let last = lastPacketEnd(near: readings.max()!) else {
            return DurationClaim(claimed: claimed, claimedEnd: readings.min(), lastPacketEnd: nil, streamsAgree: false)
        }
        return DurationClaim(claimed: claimed, claimedEnd: reading(last), lastPacketEnd: last,
                             streamsAgree: streamsEnd.map { abs($0 - last) <= DurationClaim.tolerance(last) } ?? false)
    }

    /// Audio and video streams (not cover art): what a file's length is made of.
    private func isPicture(or index: Int) -> Bool {
        let s = stream(index)
        let type = s.pointee.codecpar.pointee.codec_type
        return type == AVMEDIA_TYPE_AUDIO || (type == AVMEDIA_TYPE_VIDEO && s.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0)
    }

    /// Where the last audio or video packet ends, in seconds on the file's timeline, found by
    /// seeking back from `claimedEnd` and reading to the end of the file. Nil when the format
    /// cannot seek, or the seek lands too far from the end to read on to it. Leaves the read
    /// position at the end and every stream read: call it on a file not being read.
    private func lastPacketEnd(near claimedEnd: Double) -> Double? {
        // A reader that finished may have discarded the streams it did not want.
        for index in 0..<streamCount { stream(index).pointee.discard = AVDISCARD_DEFAULT }
        let target = startTime.addingReportingOverflow(Int64(min(claimedEnd, 7 * 24 * 3600) * Double(AV_TIME_BASE)))
        guard !target.overflow, av_seek_frame(context, -1, target.partialValue, AVSEEK_FLAG_BACKWARD) >= 0 else { return nil }
        var packets = self.packets
        var end: MediaTime?
        for _ in 0..<Self.packetsAfterSeek {
            guard let packet = packets.next() else { return end?.seconds }
            guard isPicture(or: packet.streamIndex), let stop = self.end(of: packet) else { continue }
            end = max(end ?? stop, stop)
        }
        return nil
    }

    /// Where `packet` ends: its pts (else dts) plus its duration. Nil without a timestamp, or
    /// where a damaged one overflows on the way.
    package func end(of packet: Packet) -> MediaTime? {
        let p = packet.pointer.pointee
        let at = p.pts != SHIM_AV_NOPTS_VALUE ? p.pts : p.dts
        guard at != SHIM_AV_NOPTS_VALUE else { return nil }
        let (stop, overflow) = at.addingReportingOverflow(max(0, p.duration))
        guard !overflow else { return nil }
        return MediaTime(ticks: stop, timeBase: stream(Int(p.stream_index)).pointee.time_base, origin: startTime)
    }

    /// When `packet` is read in decoding order: its dts, else its pts.
    package func time(of packet: Packet) -> MediaTime? {
        let p = packet.pointer.pointee
        let at = p.dts != SHIM_AV_NOPTS_VALUE ? p.dts : p.pts
        guard at != SHIM_AV_NOPTS_VALUE else { return nil }
        return MediaTime(ticks: at, timeBase: stream(Int(p.stream_index)).pointee.time_base, origin: startTime)
    }

    /// When a frame decoded from stream `index` shows.
    package func time(of frame: Frame, stream index: Int) -> MediaTime? {
        frame.timestamp.flatMap { MediaTime(ticks: $0, timeBase: stream(index).pointee.time_base, origin: startTime) }
    }

    /// Packets read after the seek before giving up on reaching the end (a few seconds of media
    /// past the last keyframe or index point; a format that seeked to the start would read the
    /// whole file).
    static let packetsAfterSeek = 20_000

    /// "01:02:03.500000000" in seconds.
    static func seconds(ofClock text: String) -> Double? {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let s = Double(parts[2]) else { return nil }
        return h * 3600 + m * 60 + s
    }
}
