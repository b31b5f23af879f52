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
        let directory = url.deletingLastPathComponent()
        let temp = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8))\(partialSuffix)")
        let path = url.path
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw makeError(path: directory.path, errno: errnoOf(error))
        }
        let fd = open(temp.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw makeError(path: path, errno: errno) }
        var ok = false
        defer {
            if !ok { unlink(temp.path) }
        }
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < raw.count {
                let n = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    let code = errno
                    close(fd)
                    throw makeError(path: path, errno: code)
                }
                offset += n
            }
        }
        if fsync(fd) != 0 {
            let code = errno
            close(fd)
            throw makeError(path: path, errno: code)
        }
        if close(fd) != 0 { throw makeError(path: path, errno: errno) }
        if rename(temp.path, path) != 0 { throw makeError(path: path, errno: errno) }
        ok = true
    }

    public static func write(_ text: String, to url: URL) throws {
        try write(Data(text.utf8), to: url)
    }

    private static func makeError(path: String, errno code: Int32) -> FileWriteError {
        code == ENOSPC || code == EDQUOT ? .diskFull(path: path) : .failed(path: path, errno: code)
    }

    private static func errnoOf(_ error: Error) -> Int32 {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        return EIO
    }
}
