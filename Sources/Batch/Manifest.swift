import CapforgeCore
import Foundation
import Media
import Speech
import Synchronization

/// Identity of an input file cheap enough to check on every run: size, modification time, and
/// a hash of its first and last 64 KiB (catches a file replaced by one of the same size).
public struct InputIdentity: Sendable, Equatable, Codable {
    public var size: Int64
    public var modified: Double
    public var headTailSHA256: String

    static let sampleBytes = 64 * 1024

    public init(of url: URL) throws {
        // Links are followed: the identity is the file's. Opening a FIFO would block: only
        // regular files have an identity (the probe reports the rest).
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            throw MediaError.unreadable(path: url.path, reason: String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw MediaError.notAFile(path: url.path, kind: "special file")
        }
        size = Int64(info.st_size)
        modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        hasher.update(try handle.read(upToCount: Self.sampleBytes) ?? Data())
        if size > Int64(Self.sampleBytes) {
            try handle.seek(toOffset: UInt64(max(Int64(Self.sampleBytes), size - Int64(Self.sampleBytes))))
            hasher.update(try handle.readToEnd() ?? Data())
        }
        headTailSHA256 = hasher.finalize()
    }
}

/// What a finished (or failed) input left behind, kept in one file per input so that several
/// processes sharing an output tree (`--shard`) never write the same file.
public struct ManifestEntry: Sendable, Equatable, Codable {
    /// `incomplete`: outputs were written but some speech could not be recognised; a rerun redoes it.
    public enum Status: String, Codable, Sendable { case done, incomplete, failed }

    public var input: InputIdentity
    /// Hash of every setting and model that shapes the outputs.
    public var settingsKey: String
    public var status: Status
    /// Where it is, what it wrote, why it failed: the summary's and the report's record.
    public var result: FileResult
}

/// The per-tree manifest: `.capforge/manifest/<hash of relative path>.json`.
public struct Manifest: Sendable {
    public let folder: StateFolder

    public init(stateFolder: StateFolder) {
        folder = stateFolder.subfolder("manifest")
    }

    /// Far above what a file's record grows to (a ten-hour file's cue marks are a few MB).
    static let entryLimit = 16 << 20

    /// An input's name in each of a tree's state folders (manifest, journal, shot changes): its
    /// relative path's digest, so no path can reach outside the folder.
    static func stateName(of relativePath: String) -> String {
        String(SHA256.hex(of: Data(relativePath.utf8)).prefix(24))
    }

    func name(for relativePath: String) -> String {
        Self.stateName(of: relativePath) + ".json"
    }

    /// The entry recorded for an input; nil when there is none, or none Capforge could have
    /// written (a link, a special file, a giant, times no media has), which the rerun replaces.
    public func entry(for relativePath: String) -> ManifestEntry? {
        decoded(name(for: relativePath))
    }

    public func record(_ entry: ManifestEntry) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try folder.write(try encoder.encode(entry), to: name(for: entry.result.relativePath))
    }

    /// Every entry, for finding which input an output was written for.
    public func entries() -> [ManifestEntry] {
        folder.fileNames().filter { $0.hasSuffix(".json") }.compactMap(decoded)
    }

    private func decoded(_ name: String) -> ManifestEntry? {
        guard let data = try? folder.read(name, limit: Self.entryLimit),
              let entry = try? JSONDecoder().decode(ManifestEntry.self, from: data), entry.result.isPlausible else { return nil }
        return entry
    }

    /// Drops an input's entry, whose outputs another input's now replaced (`--overwrite`): a
    /// rerun redoes that input rather than take another's captions for its own.
    public func forget(_ relativePath: String) {
        folder.remove(name(for: relativePath))
    }

    /// True when the input is done with these settings and every output still exists.
    public func isCurrent(_ relativePath: String, identity: InputIdentity, settingsKey: String) -> Bool {
        guard let entry = entry(for: relativePath), entry.status == .done, entry.input == identity, entry.settingsKey == settingsKey else { return false }
        return entry.result.outputs.allSatisfy { FileManager.default.fileExists(atPath: $0) }
    }
}

/// Which input each output in the manifests was written for, so that one input's outputs never
/// silently replace another's (`talk.webm` captioned after `talk.mkv` beside it). Each manifest
/// is read once a run, on first need; a lock guards it, as files finish on two threads.
final class OutputOwners: Sendable {
    struct Owner: Sendable {
        var relativePath: String
        var path: String
        var identity: InputIdentity
    }

    /// By manifest folder, then by an output's resolved path (bytes: NFC and NFD are two files).
    private let indexes = Mutex<[String: [[UInt8]: Owner]]>([:])

    /// The other input, and the manifest saying so, that the existing file at `url` was written
    /// for; nil when nothing is there, no manifest above it lists it, or it is `input`'s own
    /// (under another name or root, or the same file renamed: the identity tells).
    func other(than input: BatchInput, identity: InputIdentity, at url: URL) -> (owner: Owner, manifest: Manifest)? {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return nil }
        let key = Array(OutputPolicy.resolvedPath(url).path.utf8)
        let mine = FileID(path: input.url.path)
        for state in OutputLedger.stateFolders(above: url) {
            let manifest = Manifest(stateFolder: state)
            guard let owner = index(of: manifest)[key] else { continue }
            if owner.identity == identity || (mine != nil && FileID(path: owner.path) == mine) { return nil }
            return (owner, manifest)
        }
        return nil
    }

    /// Forgets an input whose outputs another input took over (`--overwrite`).
    func forget(_ owner: Owner, in manifest: Manifest) {
        manifest.forget(owner.relativePath)
        indexes.withLock { indexes in indexes[manifest.folder.url.path] = indexes[manifest.folder.url.path]?.filter { $0.value.relativePath != owner.relativePath } }
    }

    private func index(of manifest: Manifest) -> [[UInt8]: Owner] {
        indexes.withLock { indexes in
            if let index = indexes[manifest.folder.url.path] { return index }
            var index: [[UInt8]: Owner] = [:]
            for entry in manifest.entries() {
                let owner = Owner(relativePath: entry.result.relativePath, path: entry.result.path, identity: entry.input)
                for output in entry.result.outputs { index[Array(OutputPolicy.resolvedPath(URL(fileURLWithPath: output)).path.utf8)] = owner }
            }
            indexes[manifest.folder.url.path] = index
            return index
        }
    }
}
