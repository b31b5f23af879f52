import CapforgeCore
import CFFmpeg

/// Converts decoded frames of any layout, format and rate to 16 kHz mono Float32 (owns a
/// `SwrContext`). Configured from a real frame rather than codec parameters, which can lie.
final class Resampler {
    struct InputFormat: Equatable {
        var sampleFormat: Int32
        var sampleRate: Int32
        var channels: Int32
        var channelMask: UInt64
        var order: UInt32
    }

    let input: InputFormat
    private let context: OpaquePointer
    private let path: String
    private var output: [Float] = []

    /// Real recordings lie inside these; a header claiming 1 Hz would turn a small file into
    /// days of 16 kHz audio.
    static let plausibleRates: ClosedRange<Int32> = 4000...768_000
    static let maxChannels: Int32 = 64

    init(frame: UnsafePointer<AVFrame>, path: String) throws {
        self.path = path
        let rate = frame.pointee.sample_rate, channels = frame.pointee.ch_layout.nb_channels
        guard Self.plausibleRates.contains(rate) else {
            throw MediaError.implausibleAudio(path: path, reason: "its audio claims a sample rate of \(rate) Hz (real audio has \(Self.plausibleRates.lowerBound)–\(Self.plausibleRates.upperBound) Hz); the header is probably damaged")
        }
        guard (1...Self.maxChannels).contains(channels) else {
            throw MediaError.implausibleAudio(path: path, reason: "its audio stream has \(channels) channels; Capforge mixes at most \(Self.maxChannels) (choose another stream with --stream N, or split the channels with another tool)")
        }
        var inLayout = AVChannelLayout()
        var source = frame.pointee.ch_layout
        try copyChannelLayout(&source, into: &inLayout, path: path)
        defer { av_channel_layout_uninit(&inLayout) }
        input = Self.format(of: frame)
        var outLayout = shim_channel_layout_mono()
        var swr: OpaquePointer? = nil
        try check(swr_alloc_set_opts2(
            &swr, &outLayout, AV_SAMPLE_FMT_FLT, Int32(MonoAudio.sampleRate),
            &inLayout, AVSampleFormat(frame.pointee.format), frame.pointee.sample_rate, 0, nil),
            "configuring the resampler", path: path)
        guard let swr else {
            throw MediaError.library(path: path, operation: "configuring the resampler", code: shim_AVERROR(ENOMEM), message: "out of memory")
        }
        context = swr
        // Fully initialised from here: a throw still runs deinit, which frees the context.
        if inLayout.order != AV_CHANNEL_ORDER_NATIVE && channels > 1 {
            // Channels without named positions (a multitrack WAV): swr knows no downmix for
            // them, so every channel gets the same weight.
            let equal = [Double](repeating: 1 / Double(channels), count: Int(channels))
            try check(swr_set_matrix(swr, equal, channels), "setting the channel mix", path: path)
        }
        try check(swr_init(swr), "starting the resampler", path: path)
    }

    deinit {
        var swr: OpaquePointer? = context
        swr_free(&swr)
    }

    static func format(of frame: UnsafePointer<AVFrame>) -> InputFormat {
        let layout = frame.pointee.ch_layout
        return InputFormat(
            sampleFormat: frame.pointee.format, sampleRate: frame.pointee.sample_rate,
            channels: layout.nb_channels, channelMask: layout.order == AV_CHANNEL_ORDER_NATIVE ? layout.u.mask : 0,
            order: layout.order.rawValue)
    }

    /// Converts a frame; nil drains what the filter still holds.
    func convert(_ frame: UnsafePointer<AVFrame>?) throws -> ArraySlice<Float> {
        let inCount = frame?.pointee.nb_samples ?? 0
        let capacity = Int(swr_get_out_samples(context, inCount)) + 32
        if output.count < capacity { output = [Float](repeating: 0, count: capacity) }
        let produced = try output.withUnsafeMutableBytes { raw -> Int32 in
            var outPlane: UnsafeMutablePointer<UInt8>? = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let n = swr_convert(context, &outPlane, Int32(capacity), frame.map { shim_frame_extended_data_const($0) }, inCount)
            return try check(n, "resampling", path: path)
        }
        return output[0..<Int(produced)]
    }

    /// Inserts silence at the input rate, keeping the filter's history continuous across a gap.
    func injectSilence(inputSamples: Int) throws {
        try check(swr_inject_silence(context, Int32(clamping: inputSamples)), "filling a gap", path: path)
    }

    /// Drops output samples, for input that overlaps what was already produced.
    func dropOutput(samples: Int) throws {
        try check(swr_drop_output(context, Int32(clamping: samples)), "trimming an overlap", path: path)
    }
}
