import CFFmpeg
import Foundation

/// FFmpeg logs to stderr by default, interleaving with our progress output. The tool keeps it
/// quiet unless asked; `-v` routes errors and warnings through to stderr.
public enum LibraryLogging {
    public static func configure(verbose: Bool) {
        av_log_set_level(verbose ? AV_LOG_WARNING : AV_LOG_QUIET)
        shim_log_to_stderr_enable(verbose ? 1 : 0)
    }
}

/// Versions of the FFmpeg libraries this process loaded, for `--version`.
public enum MediaLibraries {
    public static var avformatVersion: String { dotted(avformat_version()) }
    public static var avcodecVersion: String { dotted(avcodec_version()) }

    private static func dotted(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xFF).\(v & 0xFF)" }
}
