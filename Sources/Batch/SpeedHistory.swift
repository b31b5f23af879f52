import CapforgeCore
import Foundation
import Speech

/// Measured processing speed per way of recognising (seconds of work per second of media),
/// kept in the state folder so `--dry-run` estimates come from this machine's own history.
public struct SpeedHistory: Codable, Sendable {
    /// By `key(_:crossChecked:)`.
    public var mediaSeconds: [String: Double] = [:]
    public var workSeconds: [String: Double] = [:]

    public init() {}

    /// Before any history: speeds measured on a 2-core machine with tiny.en and PocketSphinx,
    /// plus, cross-checked, base's share of tiny.en checked by base (Benchmarks/confidence: 0.34
    /// of real time against 0.10 alone).
    static func defaultFactor(_ mode: TierPlan.Mode, crossChecked: Bool) -> Double {
        let alone: Double
        switch mode {
        case .modern: alone = 0.10
        case .basic: return 0.20
        case .arbitrate: alone = 0.30
        }
        return alone + (crossChecked ? 0.24 : 0)
    }

    static func key(_ mode: TierPlan.Mode, crossChecked: Bool) -> String {
        mode.rawValue + (crossChecked && mode != .basic ? "+cross-check" : "")
    }

    static func url(stateFolder: URL) -> URL { stateFolder.appendingPathComponent("speed.json") }

    public static func load(stateFolder: URL) -> SpeedHistory {
        (try? JSONDecoder().decode(SpeedHistory.self, from: Data(contentsOf: url(stateFolder: stateFolder)))) ?? SpeedHistory()
    }

    public mutating func record(_ result: FileResult) {
        guard result.status == .done, let mode = result.mode, result.tier != .empty, let duration = result.duration, duration > 0 else { return }
        let key = Self.key(mode, crossChecked: result.crossChecked)
        mediaSeconds[key, default: 0] += duration
        workSeconds[key, default: 0] += result.seconds
    }

    public func save(stateFolder: URL) throws {
        try AtomicFile.write(try JSONEncoder().encode(self), to: Self.url(stateFolder: stateFolder), policy: .capforgeState)
    }

    /// Work seconds per media second; (value, measured here?).
    public func factor(_ mode: TierPlan.Mode, crossChecked: Bool) -> (Double, Bool) {
        let key = Self.key(mode, crossChecked: crossChecked)
        if let media = mediaSeconds[key], media > 0, let work = workSeconds[key] { return (work / media, true) }
        return (Self.defaultFactor(mode, crossChecked: crossChecked), false)
    }
}
