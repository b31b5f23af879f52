import CapforgeCore
import Foundation
import Media

/// An input's shot changes, found once (decoding the whole video) and kept in the state folder,
/// keyed by the file's identity: a rerun, or captions redone with other settings, read them.
struct ShotChangeCache {
    let folder: URL

    private struct Entry: Codable {
        var key: String
        var result: ShotChangeDetector.Result
    }

    func changes(for input: BatchInput, identity: InputIdentity, cancellation: Cancellation) throws -> ShotChangeDetector.Result {
        let key = "\(identity.headTailSHA256)-\(identity.size)-\(ShotChangeDetector.defaultThreshold)"
        let url = folder.appendingPathComponent(String(SHA256.hex(of: Data(input.relativePath.utf8)).prefix(24)) + ".json")
        if let data = try? Data(contentsOf: url), let entry = try? JSONDecoder().decode(Entry.self, from: data), entry.key == key {
            return entry.result
        }
        let result = try ShotChangeDetector.detect(path: input.url.path, cancellation: cancellation)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try AtomicFile.write(JSONEncoder().encode(Entry(key: key, result: result)), to: url, policy: .capforgeState)
        return result
    }
}
