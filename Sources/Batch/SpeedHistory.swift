import CapforgeCore
import Foundation
import Speech

/// Measured processing speed per way of recognising (seconds of work per second of media),
/// kept in the user's state on this machine (`UserState`), whatever the output folder, so
/// `--dry-run` estimates come from this machine's own history.
public struct SpeedHistory: Codable, Sendable {
    /// By `key(_:crossChecked:variant:model:)`: each run counts under its way of recognising,
    /// and under that way with its model.
    public var mediaSeconds: [String: Double] = [:]
    public var workSeconds: [String: Double] = [:]
    /// Per-file sums for fitting work = overhead + rate × media (a short file is mostly overhead:
    /// probing, loading the model, a whole 30 s encoder window); optional, so histories written
    /// before them still load.
    public var files: [String: Double]?
    public var mediaSquared: [String: Double]?
    public var mediaTimesWork: [String: Double]?

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

    /// The basic tier's work does not change with Whisper's options: its key leaves them out.
    static func key(_ mode: TierPlan.Mode, crossChecked: Bool, variant: String, model: String? = nil) -> String {
        mode.rawValue + (mode == .basic ? "" : (crossChecked ? "+cross-check" : "") + variant) + (model.map { "/" + $0 } ?? "")
    }

    /// The settings that change the work a file takes beyond its mode (a whole recording heard
    /// at once, a second prompted decoding, a second language...), as a key suffix: runs made
    /// one way do not price another. Empty for the defaults, so earlier histories still count.
    public static func variant(of settings: BatchSettings) -> String {
        var tags: [String] = []
        if !settings.transcription.chunking { tags.append("whole") } else if settings.transcription.onePass { tags.append("one-pass") }
        if settings.whisperNetwork == .capforge { tags.append("runtime") }
        if settings.beamSize > 1 { tags.append("beam\(settings.beamSize)") }
        if settings.preciseTiming { tags.append("precise") }
        if settings.glossary.prompt != nil { tags.append("vocab") }
        if settings.translate { tags.append(settings.alsoOriginal ? "translate+original" : "translate") }
        return tags.map { "+" + $0 }.joined()
    }

    static let fileName = "speed.json"
    /// A few numbers per way of recognising: anything larger is not a history Capforge wrote.
    static let sizeLimit = 1 << 20

    /// The history kept in `stateFolder`; an empty one when there is none, or none Capforge
    /// could have written (a link, a giant, a speed no run measures), which the next run replaces.
    public static func load(stateFolder: StateFolder) -> SpeedHistory {
        guard let data = try? stateFolder.read(fileName, limit: sizeLimit), let history = try? JSONDecoder().decode(SpeedHistory.self, from: data),
              history.isPlausible else { return SpeedHistory() }
        return history
    }

    private var isPlausible: Bool {
        [mediaSeconds, workSeconds, files ?? [:], mediaSquared ?? [:], mediaTimesWork ?? [:]].allSatisfy { sums in
            sums.values.allSatisfy { $0.isFinite && $0 >= 0 && $0 < 1e15 }
        }
    }

    public mutating func record(_ result: FileResult, variant: String) {
        guard result.status == .done, let mode = result.mode, result.tier != .empty, let duration = result.duration, duration > 0 else { return }
        let crossChecked = result.crossChecked
        for key in [Self.key(mode, crossChecked: crossChecked, variant: variant)]
            + result.models.prefix(1).map({ Self.key(mode, crossChecked: crossChecked, variant: variant, model: $0) }) {
            mediaSeconds[key, default: 0] += duration
            workSeconds[key, default: 0] += result.seconds
            files = (files ?? [:]).merging([key: 1], uniquingKeysWith: +)
            mediaSquared = (mediaSquared ?? [:]).merging([key: duration * duration], uniquingKeysWith: +)
            mediaTimesWork = (mediaTimesWork ?? [:]).merging([key: duration * result.seconds], uniquingKeysWith: +)
        }
    }

    public func save(stateFolder: StateFolder) throws {
        try stateFolder.write(try JSONEncoder().encode(self), to: Self.fileName)
    }

    /// Seconds of work for a file of `duration` seconds; (value, measured here?). The model's own
    /// history first, then the way of recognising's; from three files on, a fitted overhead and rate.
    public func estimate(_ mode: TierPlan.Mode, crossChecked: Bool, variant: String, model: String?, duration: Double) -> (Double, Bool) {
        let keys = (model.map { [Self.key(mode, crossChecked: crossChecked, variant: variant, model: $0)] } ?? [])
            + [Self.key(mode, crossChecked: crossChecked, variant: variant)]
        for key in keys {
            guard let media = mediaSeconds[key], media > 0, let work = workSeconds[key] else { continue }
            if let n = files?[key], n >= 3, let squares = mediaSquared?[key], let products = mediaTimesWork?[key] {
                let spread = n * squares - media * media
                let rate = spread > 0 ? (n * products - media * work) / spread : 0
                let overhead = (work - rate * media) / n
                if spread > 0, rate > 0, overhead >= 0 { return (overhead + rate * duration, true) }
            }
            return (duration * work / media, true)
        }
        return (duration * Self.defaultFactor(mode, crossChecked: crossChecked), false)
    }
}
