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

extension SpeechEngine {
    /// The seconds a window of `audio` costs heard as a chunked run hears chunks: `windowsAtOnce`
    /// copies side by side, each on a thread with its share of the cores, their time shared.
    public func windowSecondsSideBySide(_ audio: MonoAudio, language: Language) throws -> Double {
        let lanes = windowsAtOnce
        let clock = ContinuousClock()
        let began = clock.now
        let copies = (0 ..< lanes).map { _ in
            BackgroundWork(under: Cancellation(), prepare: { self.shareCores(among: lanes) }) { cancellation in
                try self.transcribe(audio, language: language, cancellation: cancellation).count
            }
        }
        defer { for copy in copies { copy.abandon() } }
        for copy in copies { _ = try copy.value() }
        return (clock.now - began) / .seconds(1) / Double(lanes)
    }
}
