import CapforgeCore
import Foundation

/// First SIGINT or SIGTERM: stop cleanly (the chunk in progress is abandoned, finished chunks
/// stay in the journal, temporaries are removed, the summary is printed). A second one: exit at once.
enum Interrupts {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    nonisolated(unsafe) private static var received: Int32 = 0
    nonisolated(unsafe) private static var count = 0
    private static let lock = NSLock()

    static func install(_ cancellation: Cancellation) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let first = lock.withLock {
                    count += 1
                    if received == 0 { received = number }
                    return count == 1
                }
                if first {
                    FileHandle.standardError.write(Data("\ncapforge: stopping after cleaning up (press Ctrl-C again to quit now)\n".utf8))
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
        let number = lock.withLock { received }
        return 128 + (number == 0 ? SIGINT : number)
    }
}
