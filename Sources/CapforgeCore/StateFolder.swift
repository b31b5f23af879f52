import Foundation

public enum StateFolderError: Error, CustomStringConvertible, Equatable {
    /// Something other than a plain folder (a link above all) where a state folder belongs.
    case notAFolder(path: String, kind: String)
    /// Something other than a regular file where a state file belongs.
    case notAFile(path: String, kind: String)
    case tooLarge(path: String, bytes: Int64, limit: Int)

    public var description: String {
        switch self {
        case .notAFolder(let path, let kind) where kind == "symbolic link":
            return "refusing to use \(path): it is a symbolic link where Capforge keeps a folder of its state, and Capforge follows no "
                + "link there (a planted one could send its writes anywhere); remove it and rerun (Capforge remakes what it needs)"
        case .notAFolder(let path, let kind):
            return "refusing to use \(path): it is a \(kind) where Capforge keeps a folder of its state; remove it and rerun (Capforge remakes what it needs)"
        case .notAFile(let path, let kind):
            return "refusing to read \(path): it is a \(kind), not a file Capforge wrote; remove it and rerun"
        case .tooLarge(let path, let bytes, let limit):
            return "refusing to read \(path): \(bytes) bytes, more than Capforge ever writes there (\(limit)); remove it and rerun"
        }
    }
}

/// One of Capforge's state folders, or a folder in one: a tree's `.capforge/` (manifest,
/// journals, shot changes, ledger, spool) or the user's (`UserState`). What lies in it is input
/// like any other (a shared folder or an unpacked archive may carry a planted `.capforge/`), so
/// nothing in it is followed: each folder below the root is opened without following a link, a
/// file is read only when it is regular and within a size limit, and a write replaces the name
/// itself in one rename (a link there is replaced, never written through).
public struct StateFolder: Sendable, Hashable {
    public let root: URL
    /// Folders below the root, outermost first.
    public let components: [String]
    /// The user's state folder or the temporary folder may be a link their owner made; a
    /// tree's `.capforge` may be planted, so its link is not followed.
    let followsRootLink: Bool

    /// A tree's state folder (`.capforge`).
    public init(tree root: URL) {
        self.init(root: root, components: [], followsRootLink: false)
    }

    private init(root: URL, components: [String], followsRootLink: Bool) {
        self.root = root
        self.components = components
        self.followsRootLink = followsRootLink
    }

    /// `$XDG_STATE_HOME/capforge`, else `~/.local/state/capforge`.
    public static func user(environment: [String: String] = ProcessInfo.processInfo.environment) -> StateFolder {
        StateFolder(root: UserState.folder(environment: environment), components: [], followsRootLink: true)
    }

    /// The system's temporary folder, for spools that belong to no tree.
    public static var temporary: StateFolder {
        StateFolder(root: FileManager.default.temporaryDirectory, components: [], followsRootLink: true)
    }

    public func subfolder(_ name: String) -> StateFolder {
        StateFolder(root: root, components: components + [name], followsRootLink: followsRootLink)
    }

    public var url: URL { components.reduce(root) { $0.appendingPathComponent($1) } }

    public func url(of name: String) -> URL { url.appendingPathComponent(name) }

    /// File `name`'s bytes; nil when there is none (or this folder is not there yet).
    public func read(_ name: String, limit: Int) throws -> Data? {
        guard let folder = try open(create: false) else { return nil }
        defer { close(folder) }
        let fd = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw StateFolderError.notAFile(path: url(of: name).path, kind: "symbolic link") }
            throw AtomicFile.makeError(path: url(of: name).path, errno: errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw AtomicFile.makeError(path: url(of: name).path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw StateFolderError.notAFile(path: url(of: name).path, kind: OutputPolicy.kindName(info.st_mode))
        }
        guard info.st_size <= limit else { throw StateFolderError.tooLarge(path: url(of: name).path, bytes: Int64(info.st_size), limit: limit) }
        // Read to the limit, not to the size: the file may grow meanwhile.
        var data = Data(count: Int(info.st_size) + 1)
        var filled = 0
        while filled < data.count {
            let n = data.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw AtomicFile.makeError(path: url(of: name).path, errno: errno) }
            if n == 0 { break }
            filled += n
            if filled == data.count, data.count <= limit { data.count = min(limit + 1, data.count * 2) }
        }
        guard filled <= limit else { throw StateFolderError.tooLarge(path: url(of: name).path, bytes: Int64(filled), limit: limit) }
        data.count = filled
        return data
    }

    /// Replaces file `name` with `data` in one rename; the folders to it are made as needed.
    public func write(_ data: Data, to name: String) throws {
        close(try writeKeepingOpen(data, to: name))
    }

    /// `write`, keeping the file open for appending (a journal): no later open of the name
    /// could be sent elsewhere.
    public func writeKeepingOpen(_ data: Data, to name: String) throws -> Int32 {
        guard let folder = try open(create: true) else { throw AtomicFile.makeError(path: url.path, errno: ENOENT) }
        defer { close(folder) }
        let target = url(of: name).path
        // A name of its own, locked: a sweep of stale temporaries (AtomicFile) leaves a live one alone.
        let temporary = AtomicFile.temporaryName(for: "\(name).\(UUID().uuidString.prefix(8))")
        let fd = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AtomicFile.makeError(path: target, errno: errno) }
        do {
            guard flock(fd, LOCK_EX) == 0 else { throw AtomicFile.makeError(path: target, errno: errno) }
            try data.withUnsafeBytes { try AtomicFile.writeAll($0, to: fd, path: target) }
            guard fsync(fd) == 0 else { throw AtomicFile.makeError(path: target, errno: errno) }
            guard renameat(folder, temporary, folder, name) == 0 else {
                let code = errno
                var info = stat()
                if fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFDIR {
                    throw StateFolderError.notAFile(path: target, kind: "folder")
                }
                throw AtomicFile.makeError(path: target, errno: code)
            }
            return fd
        } catch {
            unlinkat(folder, temporary, 0)
            close(fd)
            throw error
        }
    }

    /// Removes file `name` (a link there is removed, not what it names).
    public func remove(_ name: String) {
        guard let folder = try? open(create: false) else { return }
        unlinkat(folder, name, 0)
        close(folder)
    }

    /// The names of the regular files here (none when the folder is not there or not a folder).
    public func fileNames() -> [String] {
        guard let folder = try? open(create: false) else { return [] }
        guard let listing = fdopendir(folder) else {
            close(folder)
            return []
        }
        // closedir closes `folder` with it.
        defer { closedir(listing) }
        var names: [String] = []
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            var info = stat()
            if fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG { names.append(name) }
        }
        return names
    }

    /// A new file with no name, open for reading and writing: whatever ends the process, nothing
    /// is left behind.
    public func unnamedFile(prefix: String) throws -> Int32 {
        guard let folder = try open(create: true) else { throw AtomicFile.makeError(path: url.path, errno: ENOENT) }
        defer { close(folder) }
        let name = "\(prefix)-\(UUID().uuidString)"
        let fd = openat(folder, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AtomicFile.makeError(path: url(of: name).path, errno: errno) }
        guard unlinkat(folder, name, 0) == 0 else {
            let code = errno
            close(fd)
            throw AtomicFile.makeError(path: url(of: name).path, errno: code)
        }
        return fd
    }

    /// This folder opened one level at a time, no link followed below the root; nil when it is
    /// not there and `create` is false.
    private func open(create: Bool) throws -> Int32? {
        if create {
            // Above the state folder is the user's tree (or home): made as any output folder is.
            do {
                try FileManager.default.createDirectory(at: root.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw AtomicFile.makeError(path: root.deletingLastPathComponent().path, errno: AtomicFile.errnoOf(error))
            }
        }
        var current = try Self.openFolder(AT_FDCWD, root.path, shown: root.path, create: create, followLink: followsRootLink)
        var shown = root
        for name in components {
            guard let parent = current else { return nil }
            shown.appendPathComponent(name)
            current = try Self.openFolder(parent, name, shown: shown.path, create: create, followLink: false)
            close(parent)
        }
        return current
    }

    private static func openFolder(_ parent: Int32, _ name: String, shown: String, create: Bool, followLink: Bool) throws -> Int32? {
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followLink ? 0 : O_NOFOLLOW)
        var fd = openat(parent, name, flags)
        if fd < 0 && errno == ENOENT && create {
            guard mkdirat(parent, name, 0o755) == 0 || errno == EEXIST else { throw AtomicFile.makeError(path: shown, errno: errno) }
            fd = openat(parent, name, flags)
        }
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT && !create { return nil }
            var info = stat()
            if code == ELOOP || code == ENOTDIR, fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
                throw StateFolderError.notAFolder(path: shown, kind: info.st_mode & S_IFMT == S_IFLNK ? "symbolic link" : OutputPolicy.kindName(info.st_mode))
            }
            throw AtomicFile.makeError(path: shown, errno: code)
        }
        return fd
    }
}
