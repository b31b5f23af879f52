import Foundation

public enum UserFileError: Error, CustomStringConvertible, Equatable {
    case missing(path: String, what: String)
    case notAFile(path: String, what: String, kind: String)
    case tooLarge(path: String, what: String, limit: Int)
    case unreadable(path: String, what: String, reason: String)
    case notText(path: String, what: String)

    public var description: String {
        switch self {
        case .missing(let path, let what): return "\(what) \(path) does not exist; check the path"
        case .notAFile(let path, let what, let kind): return "\(what) \(path) is a \(kind), not a regular file; give the path of a file"
        case .tooLarge(let path, let what, let limit):
            return "\(what) \(path) is larger than \(limit / 1_000_000) MB; that is not what such a file looks like"
        case .unreadable(let path, let what, let reason): return "cannot read \(what) \(path): \(reason)"
        case .notText(let path, let what): return "\(what) \(path) is not UTF-8 text"
        }
    }
}

/// Small files the user names (a vocabulary, a caption profile, subtitles): only regular files
/// are opened (a FIFO would block forever), and their size is bounded before reading.
public enum UserFile {
    /// The file opened for reading, with its size; anything but a regular file, or one larger
    /// than `limit` bytes, is refused before it is opened.
    public static func openRegular(_ url: URL, what: String, limit: Int? = nil) throws -> (handle: FileHandle, size: Int) {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw UserFileError.missing(path: url.path, what: what) }
            throw UserFileError.unreadable(path: url.path, what: what, reason: String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw UserFileError.notAFile(path: url.path, what: what, kind: OutputPolicy.kindName(info.st_mode))
        }
        if let limit, info.st_size > limit { throw UserFileError.tooLarge(path: url.path, what: what, limit: limit) }
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw UserFileError.unreadable(path: url.path, what: what, reason: String(cString: strerror(errno)))
        }
        return (handle, Int(info.st_size))
    }

    public static func read(_ url: URL, what: String, limit: Int) throws -> Data {
        let (handle, _) = try openRegular(url, what: what, limit: limit)
        defer { try? handle.close() }
        return try bytes(from: handle, count: limit + 1, url: url, what: what)
    }

    /// The first `count` bytes of a regular file (fewer when it is shorter), whatever its size.
    public static func head(_ url: URL, what: String, count: Int) throws -> Data {
        let (handle, _) = try openRegular(url, what: what)
        defer { try? handle.close() }
        return try bytes(from: handle, count: count, url: url, what: what)
    }

    private static func bytes(from handle: FileHandle, count: Int, url: URL, what: String) throws -> Data {
        do {
            return try handle.read(upToCount: count) ?? Data()
        } catch {
            throw UserFileError.unreadable(path: url.path, what: what, reason: String(cString: strerror(AtomicFile.errnoOf(error))))
        }
    }

    /// A UTF-8 text file (a byte order mark is allowed).
    public static func text(_ url: URL, what: String, limit: Int) throws -> String {
        let data = try read(url, what: what, limit: limit)
        let bytes = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
            throw UserFileError.notText(path: url.path, what: what)
        }
        return text
    }
}
