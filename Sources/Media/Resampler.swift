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

    init(frame: UnsafePointer<AVFrame>, path: String) throws {
        self.path = path
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
