import CapforgeCore
import CFFmpeg
import Foundation

/// FFmpeg logs to stderr by default, interleaving with our progress output. The tool keeps it
/// quiet unless asked; `-v` routes errors and warnings to stderr through the terminal sink, a
/// line each (a message can quote a file's name or metadata).
public enum LibraryLogging {
    public static func configure(verbose: Bool) {
        av_log_set_level(verbose ? AV_LOG_WARNING : AV_LOG_QUIET)
        guard verbose else { return shim_log_default() }
        av_log_set_callback { context, level, format, arguments in
            guard level <= av_log_get_level(), let arguments else { return }
            var line = [CChar](repeating: 0, count: 1024)
            var prefix: Int32 = 1
            av_log_format_line2(context, level, format, arguments, &line, Int32(line.count), &prefix)
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            Terminal.standardError.line("ffmpeg: \(text.hasSuffix("\n") ? String(text.dropLast()) : text)")
        }
    }
}

/// Versions of the FFmpeg libraries this process loaded, for `--version`.
public enum MediaLibraries {
    public static var avformatVersion: String { dotted(avformat_version()) }
    public static var avcodecVersion: String { dotted(avcodec_version()) }

    private static func dotted(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xFF).\(v & 0xFF)" }
}
