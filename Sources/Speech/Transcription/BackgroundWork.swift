import CapforgeCore
import Foundation
import Synchronization

/// Work on a thread of its own, under a cancellation of its own (a child of the caller's), its
/// result taken later. Work that is not wanted any more is abandoned: cancelled and waited for,
/// so nothing outlives its caller.
final class BackgroundWork<Value: Sendable>: Sendable {
    private let outcome = Mutex<Result<Value, any Error>?>(nil)
    private let finished = DispatchSemaphore(value: 0)
    private let cancellation: Cancellation

    /// `prepare` runs first on the new thread (an engine sizing the thread's share of the cores);
    /// `done`, if given, is signalled when the work is finished, for a caller waiting on any of several.
    init(under parent: Cancellation, prepare: @escaping @Sendable () -> Void, done: DispatchSemaphore? = nil,
         _ body: @escaping @Sendable (Cancellation) throws -> Value) {
        let own = parent.child(deadline: nil)
        cancellation = own
        let thread = Thread { [self] in
            prepare()
            let result = Result { try body(own) }
            outcome.withLock { $0 = result }
            finished.signal()
            done?.signal()
        }
        // The size of the main thread's stack: the engines were written for it.
        thread.stackSize = 8 << 20
        thread.start()
    }

    var isFinished: Bool { outcome.withLock { $0 != nil } }

    /// Waits for the work and returns what it returned, or throws what it threw.
    func value() throws -> Value {
        waitUntilFinished()
        return try outcome.withLock { $0! }.get()
    }

    func abandon() {
        cancellation.cancel()
        waitUntilFinished()
    }

    private func waitUntilFinished() {
        finished.wait()
        // Left signalled, so a later wait returns at once.
        finished.signal()
    }
}
