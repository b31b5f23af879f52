import CapforgeCore
import CFFmpeg
import Foundation

/// Which audio stream of a file to extract.
public enum AudioStreamSelection: Sendable, Equatable {
    /// The default-disposition track, else FFmpeg's best guess.
    case automatic
    case index(Int)
    /// An ISO 639-1/-2 code or language name, matched against the streams' tags.
    case language(String)

    /// The stream this selection picks among a file's audio streams (`best`: FFmpeg's best guess):
    /// the one rule for extraction, the dry run and the language a stream's tag gives.
    public func stream(among streams: [AudioStreamInfo], best: Int?, path: String) throws -> AudioStreamInfo {
        guard let first = streams.first else { throw MediaError.noAudio(path: path) }
        switch self {
        case .index(let index):
            guard let stream = streams.first(where: { $0.index == index }) else {
                throw MediaError.noSuchStream(path: path, index: index, audioStreams: streams.map(\.index))
            }
            return stream
        case .language(let requested):
            let wanted = Language(requested)
            if let match = streams.first(where: { stream in
                guard let tag = stream.languageTag else { return false }
                if let wanted { return stream.language == wanted }
                return tag.caseInsensitiveCompare(requested) == .orderedSame
            }) {
                return match
            }
            throw MediaError.unknownLanguage(path: path, requested: requested, present: Set(streams.compactMap(\.languageTag)).sorted())
        case .automatic:
            return streams.first(where: \.isDefault) ?? streams.first { $0.index == best } ?? first
        }
    }
}

public enum ExtractionWarning: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The libraries report a truncated file as a normal end of file; this compares the last
    /// decoded time with what the container promised.
    case truncated(decodedUntil: Double, expected: Double)
    case corruptPackets(count: Int)
    case gapsFilled(count: Int, seconds: Double)
    case overlapsTrimmed(count: Int, seconds: Double)
    /// Timestamps that would place audio beyond `AudioExtractor.longestTimeline` from the start
    /// (or overflow): damaged, so the frames went on right after the audio before them.
    case timestampJumps(count: Int)
    /// The container's duration disagrees with what the file holds (`InputFile.durationClaim`).
    case durationClaim(DurationClaim)

    public var description: String {
        switch self {
        case .truncated(let got, let expected):
            return String(format: "file looks truncated: audio ends at %.2f s of %.2f s", got, expected)
        case .corruptPackets(let n):
            return "\(n) corrupt audio packet(s) skipped; silence keeps later audio in place"
        case .gapsFilled(let n, let s):
            return String(format: "%d gap(s) in the audio timeline filled with %.3f s of silence", n, s)
        case .overlapsTrimmed(let n, let s):
            return String(format: "%d overlap(s) in the audio timeline trimmed (%.3f s)", n, s)
        case .timestampJumps(let n):
            return String(format: "%d audio timestamp(s) jumped more than %.0f hours (damaged); that audio was placed right after the audio before it", n, AudioExtractor.longestTimeline / 3600)
        case .durationClaim(let claim):
            return claim.description
        }
    }
}

public struct ExtractionReport: Codable, Sendable, Equatable {
    public var streamIndex: Int
    public var languageTag: String?
    public var sampleCount: Int
    /// Silence added before the first decoded sample so that index 0 is the file's start_time.
    public var leadingSilenceSamples: Int
    public var warnings: [ExtractionWarning]

    /// Seconds of audio extracted on the file's timeline (leading silence included): what was
    /// measured, whatever the header claimed.
    public var duration: Double { Double(sampleCount) / Double(MonoAudio.sampleRate) }

    public var isTruncated: Bool {
        warnings.contains { if case .truncated = $0 { return true } else { return false } }
    }
}

/// Decodes one audio stream and resamples it to 16 kHz mono Float32, streaming.
///
/// Samples are placed by timestamp on the file's timeline (origin: the file's `start_time`), so
/// `sampleIndex / 16000` equals video time even after dropped or corrupt packets.
public struct AudioExtractor {
    public let path: String
    public let selection: AudioStreamSelection

    /// Timestamp jitter below this is container rounding (e.g. Matroska's 1 ms), not a gap.
    static let timelineTolerance = 0.02
    /// Longer gaps (and leading offsets) go to `silence` as a count, never as samples in memory;
    /// shorter ones go through the resampler, which keeps its filter history and sub-sample phase
    /// across them (a restart after the 4.2 s gap in Fixtures/bad/zeroed-64k.mp4 left a residual
    /// of 4 % on the audio after it) and holds at most this much silence (4 MB at 16 kHz).
    static let longestInjectedGap = 60.0
    /// Audio placed further than this from the file's start (a week) is a damaged timestamp,
    /// not a recording: the spool would need terabytes of silence before it.
    public static let longestTimeline = MediaTime.longestTimeline

    public init(path: String, selection: AudioStreamSelection = .automatic) {
        self.path = path
        self.selection = selection
    }

    /// Streams the samples to `sink` in order, in blocks of a frame or so; memory stays bounded.
    /// `silence`: takes a run of silent samples (a leading offset, a gap of over a minute) as a
    /// count, so a file whose audio starts hours in costs no memory; without it the run goes to
    /// `sink` as zeros, a block at a time.
    public func extract(cancellation: Cancellation? = nil, silence: ((Int) throws -> Void)? = nil,
                        sink: @escaping (ArraySlice<Float>) throws -> Void) throws -> ExtractionReport {
        let input = try InputFile(path: path)
        let streamIndex = try chooseStream(in: input)
        let stream = input.stream(streamIndex)
        for i in 0..<input.streamCount where i != streamIndex { input.leaveOut(i) }
        let decoder = try Decoder(stream: stream, path: path)
        let zeros = [Float](repeating: 0, count: 1 << 16)
        var timeline = Timeline(origin: input.startTime, timeBase: stream.pointee.time_base, sink: sink, silence: silence ?? { count in
            var left = count
            while left > 0 {
                try sink(zeros[..<min(left, zeros.count)])
                left -= zeros.count
            }
        })
        // A read error mid-file ends decoding like EOF; the truncation check reports it.
        let corruptPackets = try input.decode(stream: streamIndex, with: decoder, cancellation: cancellation) {
            try timeline.place(frame: $0, path: path)
        }
        try timeline.finish()

        var warnings: [ExtractionWarning] = []
        if corruptPackets > 0 { warnings.append(.corruptPackets(count: corruptPackets)) }
        if timeline.gapCount > 0 { warnings.append(.gapsFilled(count: timeline.gapCount, seconds: timeline.gapSeconds)) }
        if timeline.overlapCount > 0 { warnings.append(.overlapsTrimmed(count: timeline.overlapCount, seconds: timeline.overlapSeconds)) }
        if timeline.jumps > 0 { warnings.append(.timestampJumps(count: timeline.jumps)) }
        let claim = input.durationClaim()
        var truncated = false
        // Audio placed on after a damaged jump ends early on the timeline without being cut.
        if timeline.jumps == 0, let expected = input.expectedEnd(ofStream: streamIndex, fileEnd: claim.duration) {
            let decoded = timeline.decodedEnd ?? 0
            truncated = expected - decoded > 0.5
            if truncated { warnings.append(.truncated(decodedUntil: decoded, expected: expected)) }
        }
        // Where the stream's own length says the file was cut, "cut or wrong" would only repeat it.
        if claim.isContradicted && !(truncated && !claim.streamsAgree) { warnings.append(.durationClaim(claim)) }
        return ExtractionReport(
            streamIndex: streamIndex, languageTag: input.metadata(stream, "language"),
            sampleCount: timeline.produced, leadingSilenceSamples: timeline.leadingSilence, warnings: warnings)
    }

    /// The whole stream spooled to disk in `folder` (a 10-hour recording takes the memory of a
    /// 10-minute one), ready for recognition.
    public func spool(in folder: StateFolder, cancellation: Cancellation? = nil) throws -> (audio: SpooledAudio, report: ExtractionReport) {
        let audio = try SpooledAudio(in: folder)
        let report = try extract(cancellation: cancellation, silence: audio.appendSilence) { try audio.append($0) }
        try audio.finish()
        return (audio, report)
    }

    /// The whole stream in memory, ready for recognition.
    public func extractAll(cancellation: Cancellation? = nil) throws -> (audio: MonoAudio, report: ExtractionReport) {
        var samples: [Float] = []
        let report = try extract(cancellation: cancellation) { samples.append(contentsOf: $0) }
        return (MonoAudio(samples: samples, startTime: 0), report)
    }

    private func chooseStream(in input: InputFile) throws -> Int {
        try selection.stream(among: input.audioStreams, best: input.bestAudioStream, path: path).index
    }
}

/// Places resampled frames on the output timeline: leading silence up to the first timestamp,
/// silence for gaps, trimming for overlaps.
private struct Timeline {
    let origin: Int64
    let timeBase: AVRational
    let sink: (ArraySlice<Float>) throws -> Void
    let silence: (Int) throws -> Void

    var resampler: Resampler?
    /// Where the next input sample is expected, in input samples from the origin.
    var cursor: Int64 = 0
    var produced = 0
    var leadingSilence = 0
    var gapCount = 0
    var gapSeconds = 0.0
    var overlapCount = 0
    var overlapSeconds = 0.0
    var jumps = 0
    var decodedEnd: Double?

    init(origin: Int64, timeBase: AVRational, sink: @escaping (ArraySlice<Float>) throws -> Void, silence: @escaping (Int) throws -> Void) {
        self.origin = origin
        self.timeBase = timeBase
        self.sink = sink
        self.silence = silence
    }

    mutating func place(frame: Frame, path: String) throws {
        let f = UnsafePointer(frame.pointer)
        let rate = Int64(f.pointee.sample_rate)
        guard rate > 0, f.pointee.nb_samples > 0 else { return }
        let tolerance = Int64(Double(rate) * AudioExtractor.timelineTolerance)
        let started = produced > 0 || decodedEnd != nil
        var position = frame.timestamp.flatMap { self.position(of: $0, rate: rate) } ?? cursor
        if abs(position) > Int64(AudioExtractor.longestTimeline) * rate {
            jumps += 1
            position = cursor
        }
        let gap = position - cursor

        if started, gap > tolerance, gap > Int64(Double(rate) * AudioExtractor.longestInjectedGap) {
            // A long gap: the filter's tail goes out, the gap as a count of silent samples, and
            // a fresh filter starts at the next sound.
            gapCount += 1
            gapSeconds += Double(gap) / Double(rate)
            try drain()
            resampler = nil
            try emitSilence(Int(av_rescale(position, Int64(MonoAudio.sampleRate), rate)) - produced)
            cursor = position
        }
        if resampler == nil || resampler!.input != Resampler.format(of: f) {
            // Format changes mid-stream: drain the old filter before switching.
            if let old = resampler {
                try emit(try old.convert(nil))
                cursor = av_rescale(cursor, rate, Int64(old.input.sampleRate))
            }
            resampler = try Resampler(frame: f, path: path)
        }
        let resampler = resampler!

        if !started {
            if position > 0 {
                try emitSilence(Int(av_rescale(position, Int64(MonoAudio.sampleRate), rate)))
                leadingSilence = produced
            } else if position < 0 {
                try resampler.dropOutput(samples: Int(av_rescale(-position, Int64(MonoAudio.sampleRate), rate)))
            }
            cursor = position
        } else if position - cursor > tolerance {
            gapCount += 1
            gapSeconds += Double(position - cursor) / Double(rate)
            try resampler.injectSilence(inputSamples: Int(position - cursor))
            cursor = position
        } else if cursor - position > tolerance {
            overlapCount += 1
            overlapSeconds += Double(cursor - position) / Double(rate)
            let overlap = min(cursor - position, Int64(f.pointee.nb_samples))
            try resampler.dropOutput(samples: Int(av_rescale(overlap, Int64(MonoAudio.sampleRate), rate)))
            cursor = position
        }
        try emit(try resampler.convert(f))
        cursor += Int64(f.pointee.nb_samples)
        decodedEnd = Double(cursor) / Double(rate)
    }

    /// `timestamp` in input samples from the origin; nil where the arithmetic overflows (a
    /// damaged timestamp near Int64's ends), so the frame goes on at the cursor.
    private func position(of timestamp: Int64, rate: Int64) -> Int64? {
        let samplesBase = AVRational(num: 1, den: Int32(clamping: rate))
        let origin = av_rescale_q(self.origin, shim_time_base_q(), samplesBase)
        let at = av_rescale_q(timestamp, timeBase, samplesBase)
        // av_rescale_q answers Int64.min when the result does not fit.
        guard at != Int64.min, origin != Int64.min else { return nil }
        let (position, overflow) = at.subtractingReportingOverflow(origin)
        return overflow ? nil : position
    }

    mutating func finish() throws {
        try drain()
    }

    private mutating func drain() throws {
        guard let resampler else { return }
        while true {
            let rest = try resampler.convert(nil)
            if rest.isEmpty { break }
            try emit(rest)
        }
    }

    private mutating func emitSilence(_ count: Int) throws {
        guard count > 0 else { return }
        produced += count
        try silence(count)
    }

    private mutating func emit(_ samples: ArraySlice<Float>) throws {
        guard !samples.isEmpty else { return }
        produced += samples.count
        try sink(samples)
    }
}
