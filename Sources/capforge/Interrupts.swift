import CapforgeCore
import Foundation
import Synchronization

/// First SIGINT or SIGTERM: stop cleanly (the chunk in progress is abandoned, finished chunks
/// stay in the journal, temporaries are removed, the summary is printed). A second one: exit at once.
enum Interrupts {
    private struct State {
        /// Kept so the signal sources live as long as the process.
        var sources: [DispatchSourceSignal] = []
        var received: Int32 = 0
        var count = 0
    }
    private static let state = Mutex(State())

    static func install(_ cancellation: Cancellation) {
        state.withLock { $0.sources = sources(cancelling: cancellation) }
    }

    private static func sources(cancelling cancellation: Cancellation) -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let first = state.withLock { state in
                    state.count += 1
                    if state.received == 0 { state.received = number }
                    return state.count == 1
                }
                if first {
                    printError("\ncapforge: stopping after cleaning up (press Ctrl-C again to quit now)")
                    cancellation.cancel()
                } else {
                    exit(exitCode)
                }
            }
            source.resume()
            return source
        }
    }

    /// What an interrupted run exits with: 128 + the signal, as shells report it (130 for Ctrl-C).
    static var exitCode: Int32 {
        let number = state.withLock { $0.received }
        return 128 + (number == 0 ? SIGINT : number)
    }
}
