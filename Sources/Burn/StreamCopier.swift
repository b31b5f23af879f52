import Media

/// The input streams a new file carries over untouched: each packet copied as it is (audio the
/// container cannot hold re-encoded to AAC, said as a warning), every stream moved by the file's
/// start time so the output starts at zero in sync. Burn-in and muxing share it.
final class StreamCopier {
    private enum Route {
        case copy(output: Int)
        case reencode(output: Int, AudioReencoder)
    }

    let input: InputFile
    let output: OutputFile
    private var routes: [Int: Route] = [:]
    private var routingWarnings: [BurnWarning] = []
    /// Input QuickTime timecode tracks, which are never copied as streams (see `warnings`).
    private var timecodeTracks: [Int] = []

    init(input: InputFile, output: OutputFile) {
        self.input = input
        self.output = output
    }

    /// What was left out or converted. A timecode track is left out only when the output does
    /// not carry it: the MOV and MP4 muxers write one again from the `timecode` tag of a video
    /// stream copied with its tags (FFmpeg has no codec to copy it as a stream).
    var warnings: [BurnWarning] {
        let tagged = output.hasTimecodeTaggedVideo
        let rewritten = tagged && ["mov", "mp4"].contains(output.formatName)
        return routingWarnings + (rewritten ? [] : timecodeTracks.map { .timecodeLeftOut(index: $0, tagKept: tagged) })
    }

    /// Routes stream `index` when `kinds` has its type and the container can hold it (or, for
    /// audio, hold it once converted); otherwise it is left out with a warning. True when routed.
    @discardableResult
    func route(_ index: Int, kinds: Set<StreamSummary.Kind>) throws -> Bool {
        let stream = input.summary(ofStream: index)
        if stream.isTimecodeTrack {
            input.leaveOut(index)
            timecodeTracks.append(index)
            return false
        }
        let refused = stream.kind == .attachment ? !output.holdsAttachments : output.refuses(stream: index, of: input)
        let convertible = stream.kind == .audio && stream.hasDecoder
        guard stream.isKnownCodec, kinds.contains(stream.kind), !refused || convertible else {
            input.leaveOut(index)
            routingWarnings.append(stream.isKnownCodec ? .streamDropped(index: index, codec: stream.codec) : .unknownStreamDropped(index: index))
            return false
        }
        if refused {
            let reencoder = try AudioReencoder(input, stream: index, for: output)
            routes[index] = .reencode(output: try output.addStream(reencoding: index, from: input, by: reencoder), reencoder)
            routingWarnings.append(.audioReencoded(index: index, from: stream.codec))
        } else {
            routes[index] = .copy(output: try output.addCopy(of: index, from: input))
        }
        return true
    }

    /// Writes the packet when its stream is routed; false when it is not.
    func handle(_ packet: Packet) throws -> Bool {
        switch routes[packet.streamIndex] {
        case .copy(let out):
            try output.copy(packet, from: input, to: out)
        case .reencode(let out, let reencoder):
            try reencoder.send(packet) { try output.write($0, encodedBy: reencoder.encoder, to: out) }
        case nil:
            return false
        }
        return true
    }

    /// Drains the audio re-encoders at the end of the input.
    func finish() throws {
        for case .reencode(let out, let reencoder) in routes.values {
            try reencoder.send(nil) { try output.write($0, encodedBy: reencoder.encoder, to: out) }
        }
    }
}
