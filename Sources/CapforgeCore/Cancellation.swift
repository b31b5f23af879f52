import Foundation
import Synchronization

/// A thread-safe cancel flag with an optional deadline, polled by long-running work
/// (decoders, recognisers' abort callbacks).
public final class Cancellation: Sendable {
    public enum Reason: Sendable, Equatable { case cancelled, deadline }

    private let cancelledFlag = Mutex(false)
    private let deadline: Date?
    private let parent: Cancellation?
    /// How long its deadline allowed from when it was made (what a timeout reports).
    public let allowedSeconds: Double?

    public init(deadline: Date? = nil, parent: Cancellation? = nil) {
        self.deadline = deadline
        self.parent = parent
        allowedSeconds = deadline.map { $0.timeIntervalSinceNow }
    }

    /// A child that fires when this one does, or at its own deadline.
    public func child(deadline: Date?) -> Cancellation {
        Cancellation(deadline: deadline, parent: self)
    }

    public func cancel() {
        cancelledFlag.withLock { $0 = true }
    }

    /// Why work should stop now, or nil to go on.
    public var reason: Reason? {
        if cancelledFlag.withLock({ $0 }) { return .cancelled }
        if let deadline, Date() >= deadline { return .deadline }
        return parent?.reason
    }

    /// The deadline that stopped work: its own, or the nearest ancestor's that has passed.
    public var expiredAllowance: Double? {
        if let deadline, Date() >= deadline { return allowedSeconds }
        return parent?.expiredAllowance
    }

    public var isCancelled: Bool { reason != nil }
}

/// What every layer throws when the user stopped the run (Ctrl-C, SIGTERM): one error, so the
/// batch tells an interruption from a failure by one check.
public struct Cancelled: Error, Equatable, CustomStringConvertible {
    public init() {}

    public var description: String { "cancelled" }
}
