import CapforgeCore
import Foundation

/// A rendered caption file. Writing goes through a temporary and a rename, so a player or an
/// interrupted run never sees half a file.
public protocol SubtitleWriter {
    func render() throws -> String
}

extension SubtitleWriter {
    public func write(to url: URL, policy: OutputPolicy) throws {
        try AtomicFile.write(render(), to: url, policy: policy)
    }
}

/// Player naming convention, `<stem>.<lang>.<ext>` beside the video (e.g. `talk.en.srt`),
/// which VLC, mpv, Plex and Jellyfin pick up with the language set.
public enum OutputNaming {
    public static func url(forVideo video: URL, language: Language, format: SubtitleFormat) -> URL {
        let stem = video.deletingPathExtension().lastPathComponent
        return video.deletingLastPathComponent().appendingPathComponent("\(stem).\(language.code).\(format.fileExtension)")
    }
}
