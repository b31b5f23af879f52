import CapforgeCore
import Foundation

/// Turns a `Cancellation` into the engine contract's errors at the points where an engine
/// can stop. Shared by every engine.
struct CancellationCheck {
    let cancellation: Cancellation
    /// The deadline's length is not exposed, so a timeout reports how long the call ran.
    private let started: Date

    init(_ cancellation: Cancellation, started: Date = Date()) {
        self.cancellation = cancellation
        self.started = started
    }

    func check() throws {
        switch cancellation.reason {
        case nil: return
        case .cancelled: throw Cancelled()
        case .deadline: throw SpeechError.timedOut(seconds: Date().timeIntervalSince(started))
        }
    }
}
