import Foundation

/// The file itself (device and inode), not its spelling: `link/v.mp4` and `dir/v.mp4` are one file.
public struct FileID: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64

    /// The file a path names, following symbolic links; nil when there is none.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    public init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

public enum OutputError: Error, CustomStringConvertible, Equatable {
    case wouldReplaceInput(path: String)
    case notWrittenByCapforge(path: String)
    case writtenAsAnotherKind(path: String, was: OutputKind, now: OutputKind)
    case notARegularFile(path: String, kind: String)
    case brokenLink(path: String)
    case busy(path: String)
    case noReader(path: String)

    public var description: String {
        switch self {
        case .wouldReplaceInput(let path):
            return "refusing to write \(path): it is one of the input files (perhaps through a link); choose another output name"
        case .notWrittenByCapforge(let path):
            return "\(path) already exists and was not written by Capforge (or was edited since); move it away, or rerun with --overwrite to replace it"
        case .writtenAsAnotherKind(let path, let was, let now):
            return "refusing to replace \(path): Capforge wrote it as \(was.description), not as \(now.description); choose another name, "
                + "or move it away (--overwrite replaces it)"
        case .notARegularFile(let path, let kind):
            return "refusing to write \(path): it is a \(kind), not a regular file; choose another output name"
        case .brokenLink(let path):
            return "cannot write \(path): it is a symbolic link to a missing file or folder; fix or remove the link"
        case .busy(let path):
            return "cannot write \(path): another Capforge process is writing it right now"
        case .noReader(let path):
            return "cannot write \(path): it is a FIFO with no reader; start the reading process first"
        }
    }
}

/// What a file Capforge writes is, as its ledger records it: one kind never replaces another
/// unasked (a review page named like a caption file must not take its place).
public enum OutputKind: String, Codable, Sendable, CustomStringConvertible {
    case captions, report, video, audio

    public var description: String {
        switch self {
        case .captions: return "captions"
        case .report: return "a review page"
        case .video: return "a video"
        case .audio: return "extracted audio"
        }
    }
}

/// What a writer may do at a path. Capforge never writes onto one of its inputs, never replaces
/// anything that is not a regular file, and replaces a regular file only when its ledger says
/// Capforge wrote it (unchanged since) or the user said `--overwrite`.
public struct OutputPolicy: Sendable {
    /// The inputs of the run: never written, whatever the path looks like.
    public var protectedFiles: Set<FileID>
    /// Where to look up files Capforge wrote, and (the first) where to record new ones; empty:
    /// no ownership check (a file only Capforge makes, such as a converted model's cache).
    public var ledgers: [OutputLedger]
    /// Replace regular files Capforge did not write (never inputs or special files).
    public var overwrite: Bool
    /// The user named this exact path (`-o`, `--report`): a character device or FIFO there is
    /// written directly (`/dev/null`, a pipe) instead of being refused.
    public var streamsToSpecialFiles: Bool
    /// What is written, recorded in the ledger; nil for writers that do not say.
    public var kind: OutputKind?

    public init(protectedFiles: Set<FileID> = [], ledgers: [OutputLedger], overwrite: Bool = false, streamsToSpecialFiles: Bool = false,
                kind: OutputKind? = nil) {
        self.protectedFiles = protectedFiles
        self.ledgers = ledgers
        self.overwrite = overwrite
        self.streamsToSpecialFiles = streamsToSpecialFiles
        self.kind = kind
    }

    /// Where a write at `url` goes, or why it may not happen. Symbolic links are followed: the
    /// file they point to is the one written, and the link stays.
    public func destination(for url: URL) throws -> OutputDestination {
        try destination(for: url, linksFollowed: 0)
    }

    private func destination(for url: URL, linksFollowed: Int) throws -> OutputDestination {
        var info = stat()
        guard lstat(url.path, &info) == 0 else {
            guard errno == ENOENT else { throw AtomicFile.makeError(path: url.path, errno: errno) }
            return .newFile(Self.resolvedParent(of: url))
        }
        if info.st_mode & S_IFMT == S_IFLNK {
            // A link to a file not made yet is fine when the folder it points into exists.
            guard linksFollowed < 40, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path) else {
                throw OutputError.brokenLink(path: url.path)
            }
            let resolved = target.hasPrefix("/") ? URL(fileURLWithPath: target) : url.deletingLastPathComponent().appendingPathComponent(target)
            var folder = ObjCBool(false)
            guard FileManager.default.fileExists(atPath: resolved.deletingLastPathComponent().path, isDirectory: &folder), folder.boolValue else {
                throw OutputError.brokenLink(path: url.path)
            }
            return try destination(for: resolved.standardizedFileURL, linksFollowed: linksFollowed + 1)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            if protectedFiles.contains(FileID(info)) { throw OutputError.wouldReplaceInput(path: url.path) }
            let real = Self.resolvedParent(of: url)
            if !ledgers.isEmpty && !overwrite {
                guard let written = ledgers.lazy.compactMap({ $0.entry(for: real.path, identity: WrittenFile(info)) }).first else {
                    throw OutputError.notWrittenByCapforge(path: url.path)
                }
                // Entries from before kinds were recorded match any writer, as they always did.
                if let kind, let was = written.kind, was != kind {
                    throw OutputError.writtenAsAnotherKind(path: url.path, was: was, now: kind)
                }
            }
            return .replace(real)
        case S_IFCHR where streamsToSpecialFiles, S_IFIFO where streamsToSpecialFiles:
            if protectedFiles.contains(FileID(info)) { throw OutputError.wouldReplaceInput(path: url.path) }
            return .stream(url)
        default:
            throw OutputError.notARegularFile(path: url.path, kind: Self.kindName(info.st_mode))
        }
    }

    /// The same policy for writing `kind`.
    public func writing(_ kind: OutputKind) -> OutputPolicy {
        var copy = self
        copy.kind = kind
        return copy
    }

    /// The same policy, also protecting these files.
    public func protecting(_ paths: [String]) -> OutputPolicy {
        var copy = self
        copy.protectedFiles.formUnion(paths.compactMap { FileID(path: $0) })
        return copy
    }

    static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "regular file"
        case S_IFLNK: return "symbolic link"
        case S_IFDIR: return "folder"
        case S_IFCHR: return "character device"
        case S_IFBLK: return "block device"
        case S_IFIFO: return "FIFO"
        case S_IFSOCK: return "socket"
        default: return "special file"
        }
    }

    /// Where writing `url` lands: its links (the file's own, and its folders') resolved as far as
    /// they exist, so that two spellings of one place compare equal before it is made.
    public static func resolvedPath(_ url: URL) -> URL {
        resolvedPath(url.standardizedFileURL, linksFollowed: 0)
    }

    private static func resolvedPath(_ url: URL, linksFollowed: Int) -> URL {
        // A relative path (the working folder is gone) has no parent to stop at.
        guard url.path.hasPrefix("/") else { return url }
        if let real = realpath(url.path, nil) {
            defer { free(real) }
            return URL(fileURLWithPath: String(cString: real))
        }
        if linksFollowed < 40, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path) {
            let next = target.hasPrefix("/") ? URL(fileURLWithPath: target) : url.deletingLastPathComponent().appendingPathComponent(target)
            return resolvedPath(next.standardizedFileURL, linksFollowed: linksFollowed + 1)
        }
        let parent = url.deletingLastPathComponent()
        guard parent.path != url.path else { return url }
        return resolvedPath(parent, linksFollowed: linksFollowed).appendingPathComponent(url.lastPathComponent)
    }

    /// The path with its folder's links resolved, so ledger keys do not depend on spelling.
    private static func resolvedParent(of url: URL) -> URL {
        let parent = url.deletingLastPathComponent().path
        guard let resolved = realpath(parent, nil) else { return url }
        defer { free(resolved) }
        return URL(fileURLWithPath: String(cString: resolved)).appendingPathComponent(url.lastPathComponent)
    }
}

public enum OutputDestination: Equatable {
    /// Nothing there: a new file is renamed into place.
    case newFile(URL)
    /// A regular file that may be replaced (by rename: readers never see half a file).
    case replace(URL)
    /// A device or FIFO the user named: written directly, never renamed over.
    case stream(URL)
}

/// The facts that tell whether a file is still the one Capforge wrote. The inode survives the
/// rename into place; an editor's save changes the modification time or the inode. The device
/// is left out: it differs between the machines sharing an output tree over NFS.
public struct WrittenFile: Codable, Equatable, Sendable {
    public var inode: UInt64
    public var size: Int64
    public var modifiedNanoseconds: Int64

    init(_ info: stat) {
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}

extension OutputPolicy {
    /// For a path the user named (`-o`, `--report`): the user's ledger and those of the batch
    /// trees above it say which existing files Capforge wrote; a device or FIFO there is written into.
    public static func named(_ url: URL, overwrite: Bool) -> OutputPolicy {
        OutputPolicy(ledgers: OutputLedger.lookup(for: url), overwrite: overwrite, streamsToSpecialFiles: true)
    }
}

/// The files Capforge wrote, one small file per output path, so that processes sharing an
/// output tree never write the same ledger file.
public struct OutputLedger: Sendable, Equatable {
    public let folder: StateFolder

    public init(folder: StateFolder) {
        self.folder = folder
    }

    /// The ledger of a batch's output tree: beside its manifest.
    public init(stateFolder: StateFolder) {
        self.init(folder: stateFolder.subfolder("outputs"))
    }

    /// The user's ledger, for outputs written outside a batch tree (`burn`, `extract`, `--report`):
    /// `$XDG_STATE_HOME/capforge/outputs`, else `~/.local/state/capforge/outputs`.
    public static func user(environment: [String: String] = ProcessInfo.processInfo.environment) -> OutputLedger {
        OutputLedger(folder: StateFolder.user(environment: environment).subfolder("outputs"))
    }

    /// The ledgers that may know a file at `url`: the user's, and the batch trees above it.
    public static func lookup(for url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> [OutputLedger] {
        [user(environment: environment)] + stateFolders(above: url).map { OutputLedger(stateFolder: $0) }
    }

    /// The `.capforge` folders of the batch trees that hold `url`, nearest first (a link there
    /// is listed too: what reads it refuses it).
    public static func stateFolders(above url: URL) -> [StateFolder] {
        var found: [StateFolder] = []
        var folder = url.deletingLastPathComponent().standardizedFileURL
        // A relative path (the working folder is gone) has no top to stop at.
        guard folder.path.hasPrefix("/") else { return found }
        while true {
            let state = folder.appendingPathComponent(".capforge")
            var info = stat()
            if lstat(state.path, &info) == 0 { found.append(StateFolder(tree: state)) }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        return found
    }

    struct Entry: Codable {
        var path: String
        var file: WrittenFile
        /// Absent in entries written before kinds were recorded.
        var kind: OutputKind?
    }

    private func entryName(for path: String) -> String {
        String(SHA256.hex(of: Data(path.utf8)).prefix(32)) + ".json"
    }

    /// An entry is a path and a few numbers; anything larger was not written by Capforge.
    static let entryLimit = 64 * 1024

    /// Whether the regular file at `url` is, unchanged, one Capforge wrote (a ledger that may
    /// know it says so).
    public static func capforgeWrote(_ url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        var info = stat()
        guard lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        let path = OutputPolicy.resolvedPath(url).path
        return lookup(for: url, environment: environment).contains { $0.entry(for: path, identity: WrittenFile(info)) != nil }
    }

    /// The record of `path` when it is still the file Capforge wrote there.
    func entry(for path: String, identity: WrittenFile) -> Entry? {
        guard let data = try? folder.read(entryName(for: path), limit: Self.entryLimit),
              let entry = try? JSONDecoder().decode(Entry.self, from: data), entry.path == path, entry.file == identity else { return nil }
        return entry
    }

    func record(_ path: String, identity: WrittenFile, kind: OutputKind?) throws {
        try folder.write(try JSONEncoder().encode(Entry(path: path, file: identity, kind: kind)), to: entryName(for: path))
    }
}

/// Capforge's state for this user on this machine (the ledger of outputs written outside a batch
/// tree, the speed history): `$XDG_STATE_HOME/capforge`, else `~/.local/state/capforge`.
public enum UserState {
    public static func folder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let stateHome = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".local/state")
        return stateHome.appendingPathComponent("capforge")
    }
}
