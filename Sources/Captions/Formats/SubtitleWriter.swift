import CapforgeCore
import Foundation

/// A rendered caption file. Writing goes through a temporary and a rename, so a player or an
/// interrupted run never sees half a file.
public protocol SubtitleWriter {
    /// The file's bytes.
    func data() throws -> Data
    /// What the format could not carry (characters, layout, timing), said to the user.
    var warnings: [String] { get }
}

/// A writer of a text format (all but EBU STL): its file is its text in UTF-8.
public protocol TextSubtitleWriter: SubtitleWriter {
    func render() throws -> String
}

extension TextSubtitleWriter {
    public func data() throws -> Data { Data(try render().utf8) }
}

extension SubtitleWriter {
    public var warnings: [String] { [] }

    public func write(to url: URL, policy: OutputPolicy) throws {
        try AtomicFile.write(data(), to: url, policy: policy)
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
