import Foundation

/// A thread-safe cancel flag with an optional deadline, polled by long-running work
/// (decoders, recognisers' abort callbacks).
public final class Cancellation: @unchecked Sendable {
    public enum Reason: Sendable, Equatable { case cancelled, deadline }

    private let lock = NSLock()
    private var cancelledFlag = false
    private let deadline: Date?
    private let parent: Cancellation?

    public init(deadline: Date? = nil, parent: Cancellation? = nil) {
        self.deadline = deadline
        self.parent = parent
    }

    /// A child that fires when this one does, or at its own deadline.
    public func child(deadline: Date?) -> Cancellation {
        Cancellation(deadline: deadline, parent: self)
    }

    public func cancel() {
        lock.lock()
        cancelledFlag = true
        lock.unlock()
    }

    /// Why work should stop now, or nil to go on.
    public var reason: Reason? {
        lock.lock()
        let cancelled = cancelledFlag
        lock.unlock()
        if cancelled { return .cancelled }
        if let deadline, Date() >= deadline { return .deadline }
        return parent?.reason
    }

    public var isCancelled: Bool { reason != nil }
}
