import CapforgeCore
import Foundation

/// Turns a `Cancellation` into the engine contract's errors at the points where an engine
/// can stop. Shared by every engine.
struct CancellationCheck {
    let cancellation: Cancellation

    init(_ cancellation: Cancellation) {
        self.cancellation = cancellation
    }

    func check() throws {
        switch cancellation.reason {
        case nil: return
        case .cancelled: throw Cancelled()
        case .deadline: throw SpeechError.timedOut(seconds: cancellation.expiredAllowance ?? 0)
        }
    }
}
