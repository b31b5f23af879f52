import CapforgeCore
import Foundation

/// Measured processing speed per tier (seconds of work per second of media), kept in the state
/// folder so `--dry-run` estimates come from this machine's own history.
public struct SpeedHistory: Codable, Sendable {
    public var mediaSeconds: [String: Double] = [:]
    public var workSeconds: [String: Double] = [:]

    /// Before any history: speeds measured on a 2-core machine with tiny.en and PocketSphinx.
    static let defaults: [String: Double] = ["modern": 0.10, "basic": 0.20, "mixed": 0.15, "arbitrate": 0.30]

    static func url(stateFolder: URL) -> URL { stateFolder.appendingPathComponent("speed.json") }

    public static func load(stateFolder: URL) -> SpeedHistory {
        (try? JSONDecoder().decode(SpeedHistory.self, from: Data(contentsOf: url(stateFolder: stateFolder)))) ?? SpeedHistory()
    }

    public mutating func record(_ result: FileResult) {
        guard result.status == .done, let tier = result.tier, tier != .empty, let duration = result.duration, duration > 0 else { return }
        mediaSeconds[tier.rawValue, default: 0] += duration
        workSeconds[tier.rawValue, default: 0] += result.seconds
    }

    public func save(stateFolder: URL) throws {
        try AtomicFile.write(try JSONEncoder().encode(self), to: Self.url(stateFolder: stateFolder), policy: .capforgeState)
    }

    /// Work seconds per media second for a tier; (value, measured here?).
    public func factor(_ tier: String) -> (Double, Bool) {
        if let media = mediaSeconds[tier], media > 0, let work = workSeconds[tier] { return (work / media, true) }
        return (Self.defaults[tier] ?? 0.2, false)
    }
}
