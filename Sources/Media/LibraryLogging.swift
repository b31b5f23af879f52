import CFFmpeg
import Foundation

/// FFmpeg logs to stderr by default, interleaving with our progress output. The tool keeps it
/// quiet unless asked; `-v` routes errors and warnings through to stderr.
public enum LibraryLogging {
    public static func configure(verbose: Bool) {
        av_log_set_level(verbose ? AV_LOG_WARNING : AV_LOG_QUIET)
        shim_set_log_sink(verbose ? { _, line in
            guard let line else { return }
            FileHandle.standardError.write(Data("ffmpeg: ".utf8) + Data(String(cString: line).utf8))
        } : nil)
    }
}
