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
}

public struct ScanProblem: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}

/// Finds media files in files and folders (recursively), skipping hidden folders, Capforge's
/// own outputs and partial files.
public enum InputScanner {
    public static let videoExtensions: Set<String> = ["mp4", "m4v", "mkv", "mov", "webm", "avi", "wmv", "flv", "mpg", "mpeg", "ts", "mts", "m2ts", "3gp", "ogv"]
    public static let audioExtensions: Set<String> = ["mp3", "m4a", "aac", "wav", "flac", "ogg", "oga", "opus", "wma"]
    /// Burned-in outputs carry this before their extension (`talk.captioned.mp4`).
    public static let burnedMarker = ".captioned."

    public static func scan(_ paths: [String]) -> (inputs: [BatchInput], problems: [ScanProblem]) {
        var inputs: [BatchInput] = []
        var problems: [ScanProblem] = []
        var seen = Set<String>()
        for path in paths {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                problems.append(ScanProblem(path: path, reason: "no such file or folder"))
                continue
            }
            if isDirectory.boolValue {
                walk(url, root: url, into: &inputs, problems: &problems)
            } else {
                // A file named explicitly is taken whatever its extension: the user asked for it.
                inputs.append(BatchInput(url: url, root: url.deletingLastPathComponent(), relativePath: url.lastPathComponent))
            }
        }
        inputs = inputs.filter { seen.insert($0.url.path).inserted }
        return (inputs, problems)
    }

    public static func isCandidate(name: String) -> Bool {
        let ext = (name as NSString).pathExtension.lowercased()
        return !name.hasPrefix(".") && !name.hasSuffix(AtomicFile.partialSuffix) && !name.contains(burnedMarker)
            && (videoExtensions.contains(ext) || audioExtensions.contains(ext))
    }

    private static func walk(_ folder: URL, root: URL, into inputs: inout [BatchInput], problems: inout [ScanProblem]) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        } catch {
            let reason = access(folder.path, R_OK | X_OK) != 0 ? String(cString: strerror(errno)) : "cannot be listed"
            problems.append(ScanProblem(path: folder.path, reason: "folder cannot be read (\(reason))"))
            return
        }
        for name in names where !name.hasPrefix(".") {
            let url = folder.appendingPathComponent(name)
            var info = stat()
            guard lstat(url.path, &info) == 0 else {
                // Foundation decodes a name that is not UTF-8 with U+FFFD, so it cannot be opened again.
                if name.contains("\u{FFFD}") && isCandidate(name: name) {
                    problems.append(ScanProblem(path: url.path, reason: "the file name is not valid UTF-8 (shown with �); rename the file to caption it"))
                }
                continue
            }
            // Symlinked folders are not followed: they can loop or leave the tree.
            let isDirectory = info.st_mode & S_IFMT == S_IFDIR
            if isDirectory {
                walk(url, root: root, into: &inputs, problems: &problems)
            } else if isCandidate(name: name) {
                let relative = String(url.path.dropFirst(root.path.count).drop { $0 == "/" })
                inputs.append(BatchInput(url: url, root: root, relativePath: relative))
            }
        }
    }
}
