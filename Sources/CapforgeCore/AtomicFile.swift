import Foundation

public enum FileWriteError: Error, CustomStringConvertible, Equatable {
    case diskFull(path: String)
    case failed(path: String, errno: Int32)

    public var description: String {
        switch self {
        case .diskFull(let path):
            return "cannot write \(path): no space left on the device; free some space and rerun (finished files are kept)"
        case .failed(let path, let code) where code == EACCES || code == EPERM || code == EROFS:
            return "cannot write \(path): \(String(cString: strerror(code))); choose a writable place (for captions: --out DIR)"
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

    public static func write(_ data: Data, to url: URL, policy: OutputPolicy) throws {
        let writer = try AtomicFileWriter(url, policy: policy)
        try writer.append(data)
        try writer.commit()
    }

    public static func write(_ text: String, to url: URL, policy: OutputPolicy) throws {
        try write(Data(text.utf8), to: url, policy: policy)
    }

    /// Removes the temporaries in `folder` that no live writer holds (left by a killed run).
    /// Safe beside other running processes: every writer keeps its temporary locked.
    public static func removeStaleTemporaries(in folder: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(".") && name.hasSuffix(partialSuffix) {
            let path = folder.appendingPathComponent(name).path
            let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else { continue }
            var info = stat()
            if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, flock(fd, LOCK_EX | LOCK_NB) == 0 {
                unlink(path)
            }
            close(fd)
        }
    }

    /// Writes all of `raw` to `fd`, retrying interrupted and short writes.
    public static func writeAll(_ raw: UnsafeRawBufferPointer, to fd: Int32, path: String) throws {
        var offset = 0
        while offset < raw.count {
            let n = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw makeError(path: path, errno: errno)
            }
            offset += n
        }
    }

    public static func makeError(path: String, errno code: Int32) -> FileWriteError {
        code == ENOSPC || code == EDQUOT ? .diskFull(path: path) : .failed(path: path, errno: code)
    }

    /// The POSIX cause of a Foundation file error (which may carry only a Cocoa code).
    static func errnoOf(_ error: Error) -> Int32 {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        if ns.domain == NSPOSIXErrorDomain { return Int32(ns.code) }
        switch ns.code {
        case NSFileWriteNoPermissionError, NSFileReadNoPermissionError: return EACCES
        case NSFileWriteVolumeReadOnlyError: return EROFS
        case NSFileWriteOutOfSpaceError: return ENOSPC
        case NSFileNoSuchFileError, NSFileReadNoSuchFileError: return ENOENT
        default: return EIO
        }
    }

    /// `.NAME.partial`, one per target: a killed run's leftover is found and reused by the next
    /// write of the same file. Long names are shortened to stay within NAME_MAX.
    static func temporaryName(for name: String) -> String {
        let plain = ".\(name)\(partialSuffix)"
        guard plain.utf8.count > 255 else { return plain }
        let prefix = String(decoding: name.utf8.prefix(180), as: UTF8.self).filter { $0 != "\u{FFFD}" }
        return ".\(prefix).\(SHA256.hex(of: Data(name.utf8)).prefix(16))\(partialSuffix)"
    }
}

/// Streams a file through a hidden temporary beside the target; `commit` makes it visible
/// in one rename. Dropped without `commit`, it leaves nothing behind. The target is checked
/// against the policy first (see `OutputPolicy`); a device or FIFO the user named is written
/// directly instead.
public final class AtomicFileWriter {
    public let url: URL
    /// The file that is finally written (a link's target, resolved).
    public let destination: URL
    private let temp: URL?
    private let recordIn: OutputLedger?
    private let kind: OutputKind?
    private var fd: Int32

    public init(_ url: URL, policy: OutputPolicy) throws {
        self.url = url
        recordIn = policy.ledgers.first
        kind = policy.kind
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw AtomicFile.makeError(path: directory.path, errno: AtomicFile.errnoOf(error))
        }
        switch try policy.destination(for: url) {
        case .stream(let target):
            destination = target
            temp = nil
            fd = try Self.openStream(target)
        case .newFile(let target), .replace(let target):
            destination = target
            let temporary = target.deletingLastPathComponent().appendingPathComponent(AtomicFile.temporaryName(for: target.lastPathComponent))
            temp = temporary
            fd = try Self.claimTemporary(temporary, for: url)
        }
    }

    /// The hidden temporary, for writers that must open the file themselves (e.g. a muxer that
    /// seeks and re-reads it); `commit` still syncs and renames it into place. Nil when the
    /// destination is a device or FIFO.
    public var temporaryURL: URL? { temp }

    deinit {
        if fd >= 0 {
            if let temp { unlink(temp.path) }
            close(fd)
        }
    }

    public func append(_ data: Data) throws {
        try data.withUnsafeBytes { try append($0) }
    }

    public func append(_ raw: UnsafeRawBufferPointer) throws {
        try AtomicFile.writeAll(raw, to: fd, path: url.path)
    }

    /// Flushes to disk, records the file in the ledger, and renames it into place.
    public func commit() throws {
        guard let temp else {
            let closed = close(fd)
            fd = -1
            guard closed == 0 else { throw AtomicFile.makeError(path: url.path, errno: errno) }
            return
        }
        if fsync(fd) != 0 { throw AtomicFile.makeError(path: url.path, errno: errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw AtomicFile.makeError(path: url.path, errno: errno) }
        // Recorded before the rename: a run killed in between must still own its file next time.
        try recordIn?.record(destination.path, identity: WrittenFile(info), kind: kind)
        // Renamed while still locked, so a concurrent sweep cannot take the temporary away.
        if rename(temp.path, destination.path) != 0 {
            throw AtomicFile.makeError(path: url.path, errno: errno)
        }
        let closed = close(fd)
        fd = -1
        guard closed == 0 else { throw AtomicFile.makeError(path: url.path, errno: errno) }
    }

    /// Opens (or takes over a killed run's) temporary, locked for as long as this writer lives.
    private static func claimTemporary(_ temporary: URL, for url: URL) throws -> Int32 {
        while true {
            let fd = open(temporary.path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                if errno == ELOOP { throw OutputError.notARegularFile(path: temporary.path, kind: "symbolic link") }
                throw AtomicFile.makeError(path: url.path, errno: errno)
            }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                throw OutputError.busy(path: url.path)
            }
            // The lock is on the file opened; if that was renamed or removed meanwhile, start again.
            var opened = stat(), current = stat()
            if fstat(fd, &opened) == 0, lstat(temporary.path, &current) == 0,
               opened.st_ino == current.st_ino, opened.st_dev == current.st_dev {
                guard opened.st_mode & S_IFMT == S_IFREG else {
                    close(fd)
                    throw OutputError.notARegularFile(path: temporary.path, kind: OutputPolicy.kindName(opened.st_mode))
                }
                guard ftruncate(fd, 0) == 0 else {
                    let code = errno
                    close(fd)
                    throw AtomicFile.makeError(path: url.path, errno: code)
                }
                return fd
            }
            close(fd)
        }
    }

    /// A device or FIFO: opened without blocking (a FIFO with no reader would hang forever),
    /// then written in blocking mode.
    private static func openStream(_ target: URL) throws -> Int32 {
        let fd = open(target.path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENXIO { throw OutputError.noReader(path: target.path) }
            throw AtomicFile.makeError(path: target.path, errno: errno)
        }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            let code = errno
            close(fd)
            throw AtomicFile.makeError(path: target.path, errno: code)
        }
        return fd
    }
}
