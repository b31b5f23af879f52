import Burn
import CapforgeCore
import Captions
import Foundation

/// Subtitle files as tracks: the ones `capforge caption` wrote beside a video, and any file
/// turned into the `SubtitleTrack` a mux adds.
public enum CaptionFiles {
    /// `<stem>.<lang>.<srt|vtt|ass>` beside the video, by language (a language's formats in
    /// the order tracks prefer them: ASS keeps styles and the notice, SRT is plain).
    public static func written(for video: URL) -> [(language: Language, files: [URL])] {
        let folder = video.deletingLastPathComponent()
        let stem = video.deletingPathExtension().lastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var byLanguage: [Language: [URL]] = [:]
        for name in names where name.hasPrefix(stem + ".") {
            let url = folder.appendingPathComponent(name)
            let rest = url.deletingPathExtension()
            guard rest.deletingPathExtension().lastPathComponent == stem, let language = Language(rest.pathExtension),
                  let format = SubtitleFormats.reading(fileExtension: url.pathExtension)?.id, preference.contains(format) else { continue }
            byLanguage[language, default: []].append(url)
        }
        return byLanguage.sorted { $0.key < $1.key }.map { language, files in
            (language, files.sorted { rank($0) < rank($1) })
        }
    }

    private static let preference: [SubtitleFormat] = [.ass, .srt, .vtt]

    private static func rank(_ url: URL) -> Int {
        SubtitleFormats.reading(fileExtension: url.pathExtension).flatMap { preference.firstIndex(of: $0.id) } ?? preference.count
    }

    /// A subtitle file as a track: ASS with its styles, SRT and WebVTT as plain text, read a cue
    /// at a time (a file of any size takes little memory). The language comes from the name
    /// (`talk.fr.srt`), else `language`; the title, unless given, names the language and, for
    /// captions Capforge made, how it made them. Errors name the file.
    public static func track(from url: URL, language fallback: Language?, title: String?) throws -> SubtitleTrack {
        let named = Language(url.deletingPathExtension().pathExtension)
        let language = named ?? fallback
        let made = CaptionProvenance.of(captionsAt: url)
        let title = title ?? made.map { SubtitleTrack.title(language: language, tier: $0.tier, translatedFrom: $0.translatedFrom) }
            ?? language?.name ?? url.deletingPathExtension().lastPathComponent
        do {
            if SubtitleFormats.reading(fileExtension: url.pathExtension)?.id == .ass {
                return try .styled(scriptAt: url, language: language, title: title)
            }
            return try .text(fileAt: url, language: language, title: title)
        } catch let error as SubtitleReadError {
            throw CaptionFilesError.unreadable(path: url.path, reason: error)
        }
    }
}

public enum CaptionFilesError: Error, CustomStringConvertible {
    /// The reader's complaint (a line number, an encoding), which does not name the file.
    case unreadable(path: String, reason: SubtitleReadError)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "\(path): \(reason)"
        }
    }
}
