import CapforgeCore
import Foundation
import Media
import Speech

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
    public let folder: URL

    public init(stateFolder: URL) {
        folder = stateFolder.appendingPathComponent("manifest")
    }

    func url(for relativePath: String) -> URL {
        folder.appendingPathComponent(String(SHA256.hex(of: Data(relativePath.utf8)).prefix(24)) + ".json")
    }

    public func entry(for relativePath: String) -> ManifestEntry? {
        guard let data = try? Data(contentsOf: url(for: relativePath)) else { return nil }
        return try? JSONDecoder().decode(ManifestEntry.self, from: data)
    }

    public func record(_ entry: ManifestEntry) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicFile.write(try encoder.encode(entry), to: url(for: entry.result.relativePath), policy: .capforgeState)
    }

    /// True when the input is done with these settings and every output still exists.
    public func isCurrent(_ relativePath: String, identity: InputIdentity, settingsKey: String) -> Bool {
        guard let entry = entry(for: relativePath), entry.status == .done, entry.input == identity, entry.settingsKey == settingsKey else { return false }
        return entry.result.outputs.allSatisfy { FileManager.default.fileExists(atPath: $0) }
    }
}
