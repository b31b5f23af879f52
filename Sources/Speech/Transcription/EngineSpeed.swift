import CapforgeCore
import Foundation
import Synchronization

/// How long each engine has taken on this machine in this run, so a chunk's deadline fits the
/// model in use: base on two cores can need more than 3× a short chunk's length, which makes it
/// slow, not stuck. Whisper pays a whole 30 s window however short the chunk, so work is counted
/// per `window` seconds at least.
final class EngineSpeed: Sendable {
    static let window = 30.0
    /// Engine key → the slowest seconds of work per second of (window-padded) audio seen.
    private let slowest = Mutex<[String: Double]>([:])

    func record(_ identity: EngineIdentity, audioSeconds: Double, workSeconds: Double) {
        guard audioSeconds > 0, workSeconds >= 0 else { return }
        let rate = workSeconds / max(audioSeconds, Self.window)
        slowest.withLock { $0[CalibrationTable.key(identity)] = max($0[CalibrationTable.key(identity)] ?? 0, rate) }
    }

    /// The work `identity` is expected to need for `audioSeconds`, or nil before its first call.
    func expectedWork(_ identity: EngineIdentity, audioSeconds: Double) -> Double? {
        slowest.withLock { $0[CalibrationTable.key(identity)] }.map { $0 * max(audioSeconds, Self.window) }
    }
}
