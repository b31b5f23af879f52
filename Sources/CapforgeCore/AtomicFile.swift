import Foundation

public enum FileWriteError: Error, CustomStringConvertible, Equatable {
    case diskFull(path: String)
    case failed(path: String, errno: Int32)

    public var description: String {
        switch self {
        case .diskFull(let path):
            return "cannot write \(path): no space left on the device; free some space and rerun (finished files are kept)"
        case .failed(let path, let code):
            return "cannot write \(path): \(String(cString: strerror(code)))"
        }
    }
}

/// Writes whole files through a hidden temporary beside the target and a rename, so a reader
/// (or an interrupted run) never sees a half-written file.
public enum AtomicFile {
    /// Suffix of in-flight temporaries; folder scans skip files carrying it.
    public static let partialSuffix = ".partial"

    public static func write(_ data: Data, to url: URL) throws {
        let writer = try AtomicFileWriter(url)
        try writer.append(data)
        try writer.commit()
    }

    public static func write(_ text: String, to url: URL) throws {
        try write(Data(text.utf8), to: url)
    }

    static func makeError(path: String, errno code: Int32) -> FileWriteError {
        code == ENOSPC || code == EDQUOT ? .diskFull(path: path) : .failed(path: path, errno: code)
    }

    static func errnoOf(_ error: Error) -> Int32 {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        return EIO
    }
}

/// Streams a file through a hidden temporary beside the target; `commit` makes it visible
/// in one rename. Dropped without `commit`, it leaves nothing behind.
public final class AtomicFileWriter {
    public let url: URL
    private let temp: URL
    private var fd: Int32

    public init(_ url: URL) throws {
        self.url = url
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw AtomicFile.makeError(path: directory.path, errno: AtomicFile.errnoOf(error))
        }
        temp = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8))\(AtomicFile.partialSuffix)")
        fd = open(temp.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AtomicFile.makeError(path: url.path, errno: errno) }
    }

    /// The hidden temporary, for writers that must open the file themselves (e.g. a muxer that
    /// seeks and re-reads it); `commit` still syncs and renames it into place.
    public var temporaryURL: URL { temp }

    deinit {
        if fd >= 0 {
            close(fd)
            unlink(temp.path)
        }
    }

    public func append(_ data: Data) throws {
        try data.withUnsafeBytes { try append($0) }
    }

    public func append(_ raw: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < raw.count {
            let n = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw AtomicFile.makeError(path: url.path, errno: errno)
            }
            offset += n
        }
    }

    /// Flushes to disk and renames into place.
    public func commit() throws {
        if fsync(fd) != 0 { throw AtomicFile.makeError(path: url.path, errno: errno) }
        let closed = close(fd)
        fd = -1
        guard closed == 0 else {
            let code = errno
            unlink(temp.path)
            throw AtomicFile.makeError(path: url.path, errno: code)
        }
        if rename(temp.path, url.path) != 0 {
            let code = errno
            unlink(temp.path)
            throw AtomicFile.makeError(path: url.path, errno: code)
        }
    }
}
