import CapforgeCore
import Foundation

/// One media file found for a batch, with the folder it was found under.
public struct BatchInput: Sendable, Hashable, Codable {
    /// The file, absolute.
    public var url: URL
    /// The folder given on the command line (or the file's own folder for a file argument).
    public var root: URL
    /// Path below `root`, with "/" separators; stable across machines for sharding.
    public var relativePath: String

    public init(url: URL, root: URL, relativePath: String) {
        self.url = url
        self.root = root
        self.relativePath = relativePath
    }
}

public struct ScanProblem: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }

    /// The problem as a failed file, for the summary and the report.
    public var failedResult: FileResult {
        var result = FileResult(relativePath: path, path: path, status: .failed)
        result.error = reason
        return result
    }
}

/// Finds media files in files and folders (recursively), skipping hidden folders, Capforge's
/// own outputs and partial files. Links to files and folders are followed, and each real file
/// and folder is taken once (a link loop ends there); names are compared byte for byte, so
/// `café` spelled NFC and NFD are two files. What cannot be looked at is reported, never skipped.
public enum InputScanner {
    public static let videoExtensions: Set<String> = ["mp4", "m4v", "mkv", "mov", "webm", "avi", "wmv", "flv", "mpg", "mpeg", "ts", "mts", "m2ts", "3gp", "ogv",
                                                      "mxf", "vob", "asf", "f4v", "dv", "rm", "rmvb"]
    public static let audioExtensions: Set<String> = ["mp3", "m4a", "aac", "wav", "flac", "ogg", "oga", "opus", "wma",
                                                      "aif", "aiff", "aifc", "caf", "mka", "amr", "ac3", "au", "wv"]
    /// Files a media folder holds that are plainly not media (Capforge's own outputs, other
    /// subtitles, documents, images, archives, checksums): a folder scan leaves them out without
    /// counting them, so the warning about skipped files names only what might be media.
    static let notMediaExtensions: Set<String> = [
        "srt", "ass", "ssa", "vtt", "sub", "idx", "sbv", "ttml", "dfxp", "lrc", "json", "html", "htm", "xml",
        "txt", "md", "pdf", "doc", "docx", "odt", "rtf", "ppt", "pptx", "odp", "key", "xls", "xlsx", "ods", "csv", "tsv",
        "jpg", "jpeg", "png", "gif", "bmp", "webp", "svg", "tif", "tiff", "heic",
        "zip", "tar", "gz", "xz", "bz2", "7z", "rar", "nfo", "log", "ini", "yaml", "yml", "sha256", "md5", "url", "db",
    ]
    /// Burned-in outputs carry this before their extension (`talk.captioned.mp4`).
    public static let burnedMarker = ".captioned."
    /// Copies with subtitle tracks carry this (`talk.subtitled.mkv`).
    public static let subtitledMarker = ".subtitled."

    /// The video a subtitle file was made for: `talk.en.srt` (or `talk.srt`) belongs to a
    /// `talk.mp4`, `talk.mkv`, … beside it; nil when there is none, or several.
    public static func video(besideSubtitles subtitles: URL) -> URL? {
        let folder = subtitles.deletingLastPathComponent()
        var stem = subtitles.deletingPathExtension()
        // The player naming convention puts the language between stem and extension.
        if Language(stem.pathExtension) != nil { stem = stem.deletingPathExtension() }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let videos = names.filter { name in
            let url = URL(fileURLWithPath: name)
            return url.deletingPathExtension().lastPathComponent == stem.lastPathComponent && videoExtensions.contains(url.pathExtension.lowercased())
        }
        return videos.count == 1 ? folder.appendingPathComponent(videos[0]) : nil
    }

    /// The media files under `paths`; `alsoExtensions` are taken in folders too. `skipped`
    /// counts, by extension, the other files the folders held that might be media.
    public static func scan(_ paths: [String], alsoExtensions: Set<String> = [])
        -> (inputs: [BatchInput], problems: [ScanProblem], skipped: [String: Int]) {
        var scan = Scan(alsoExtensions: Set(alsoExtensions.map { $0.lowercased() }))
        for path in paths {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            var info = stat()
            guard stat(url.path, &info) == 0 else {
                scan.problems.append(ScanProblem(path: path, reason: errno == ENOENT ? "no such file or folder" : String(cString: strerror(errno))))
                continue
            }
            if info.st_mode & S_IFMT == S_IFDIR {
                scan.walk(url, root: url)
            } else {
                // A file named explicitly is taken whatever its extension: the user asked for it
                // (and the probe says what is wrong with a FIFO or device).
                scan.add(BatchInput(url: url, root: url.deletingLastPathComponent(), relativePath: url.lastPathComponent), info)
            }
        }
        return (scan.inputs, scan.problems, scan.skipped)
    }

    public static func isCandidate(name: String, alsoExtensions: Set<String> = []) -> Bool {
        let ext = (name as NSString).pathExtension.lowercased()
        return isOrdinary(name) && (videoExtensions.contains(ext) || audioExtensions.contains(ext) || alsoExtensions.contains(ext))
    }

    /// Not hidden, not a temporary, not a burned-in or subtitled copy.
    static func isOrdinary(_ name: String) -> Bool {
        !name.hasPrefix(".") && !name.hasSuffix(AtomicFile.partialSuffix) && !name.contains(burnedMarker) && !name.contains(subtitledMarker)
    }

}

private struct Scan {
    let alsoExtensions: Set<String>
    var inputs: [BatchInput] = []
    var problems: [ScanProblem] = []
    var skipped: [String: Int] = [:]
    private var seenFiles = Set<FileID>()
    private var seenFolders = Set<FileID>()

    init(alsoExtensions: Set<String>) {
        self.alsoExtensions = alsoExtensions
    }

    mutating func add(_ input: BatchInput, _ info: stat) {
        // A special file named explicitly has no stable identity to compare: it is kept, once per path.
        if info.st_mode & S_IFMT == S_IFREG {
            guard seenFiles.insert(FileID(info)).inserted else { return }
        } else if inputs.contains(where: { Array($0.url.path.utf8) == Array(input.url.path.utf8) }) {
            return
        }
        inputs.append(input)
    }

    mutating func walk(_ folder: URL, root: URL) {
        var info = stat()
        guard stat(folder.path, &info) == 0, seenFolders.insert(FileID(info)).inserted else { return }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        } catch {
            let reason = access(folder.path, R_OK | X_OK) != 0 ? String(cString: strerror(errno)) : "cannot be listed"
            problems.append(ScanProblem(path: folder.path, reason: "folder cannot be read (\(reason)); its files were not captioned"))
            return
        }
        for name in names where !name.hasPrefix(".") {
            let url = folder.appendingPathComponent(name)
            var entry = stat()
            // stat, not lstat: links to files and folders are followed (each real one once).
            guard stat(url.path, &entry) == 0 else {
                let code = errno
                // Foundation decodes a name that is not UTF-8 with U+FFFD, so it cannot be opened again.
                if name.contains("\u{FFFD}") {
                    if InputScanner.isCandidate(name: name, alsoExtensions: alsoExtensions) {
                        problems.append(ScanProblem(path: url.path, reason: "the file name is not valid UTF-8 (shown with �); rename the file to caption it"))
                    }
                } else if code == ENAMETOOLONG {
                    problems.append(ScanProblem(path: url.path, reason: "the path is longer than the system allows (\(PATH_MAX) bytes); move it higher up to caption what is inside"))
                } else if code == ENOENT, (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) != nil {
                    if InputScanner.isCandidate(name: name, alsoExtensions: alsoExtensions) {
                        problems.append(ScanProblem(path: url.path, reason: "a link to a file that does not exist"))
                    }
                } else {
                    problems.append(ScanProblem(path: url.path, reason: String(cString: strerror(code))))
                }
                continue
            }
            if entry.st_mode & S_IFMT == S_IFDIR {
                walk(url, root: root)
            } else if InputScanner.isCandidate(name: name, alsoExtensions: alsoExtensions) {
                let relative = String(url.path.dropFirst(root.path.count).drop { $0 == "/" })
                add(BatchInput(url: url, root: root, relativePath: relative), entry)
            } else if InputScanner.isOrdinary(name), !InputScanner.notMediaExtensions.contains(url.pathExtension.lowercased()) {
                skipped[url.pathExtension.lowercased(), default: 0] += 1
            }
        }
    }
}
