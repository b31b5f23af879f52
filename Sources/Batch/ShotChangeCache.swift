import CapforgeCore
import Foundation
import Media

/// An input's shot changes, found once (decoding the whole video) and kept in the state folder,
/// keyed by the file's identity: a rerun, or captions redone with other settings, read them.
struct ShotChangeCache {
    let folder: StateFolder

    private struct Entry: Codable {
        var key: String
        var result: ShotChangeDetector.Result
    }

    /// A change a frame for a week of 120 fps video is far less (a cache is a few KB).
    static let entryLimit = 16 << 20

    /// The input's shot changes, and why they could not be kept for a rerun when they could not.
    func changes(for input: BatchInput, identity: InputIdentity, cancellation: Cancellation) throws -> (ShotChangeDetector.Result, notKept: Error?) {
        let key = "\(identity.headTailSHA256)-\(identity.size)-\(ShotChangeDetector.defaultThreshold)"
        let name = Manifest.stateName(of: input.relativePath) + ".json"
        // One that cannot be Capforge's (a link, a giant, times no video has) is found anew and replaced.
        if let data = try? folder.read(name, limit: Self.entryLimit), let entry = try? JSONDecoder().decode(Entry.self, from: data),
           entry.key == key, entry.result.isPlausible {
            return (entry.result, nil)
        }
        let result = try ShotChangeDetector.detect(path: input.url.path, cancellation: cancellation)
        do {
            try folder.write(JSONEncoder().encode(Entry(key: key, result: result)), to: name)
            return (result, nil)
        } catch {
            return (result, error)
        }
    }
}

extension ShotChangeDetector.Result {
    /// Times in order on a timeline, a frame rate a video has.
    var isPlausible: Bool {
        changes.allSatisfy(MediaTime.isPlausible(seconds:)) && zip(changes, changes.dropFirst()).allSatisfy { $0 <= $1 }
            && frames >= 0 && (frameRate.map { $0.isFinite && $0 > 0 && $0 <= 1000 } ?? true)
    }
}
