import CapforgeCore
import Foundation

/// First SIGINT: stop cleanly (the chunk in progress is abandoned, finished chunks stay in the
/// journal, temporaries are removed, the summary is printed). Second SIGINT: exit at once.
enum Interrupts {
    nonisolated(unsafe) private static var source: DispatchSourceSignal?

    static func install(_ cancellation: Cancellation) {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        var count = 0
        source.setEventHandler {
            count += 1
            if count == 1 {
                FileHandle.standardError.write(Data("\ncapforge: stopping after cleaning up (press Ctrl-C again to quit now)\n".utf8))
                cancellation.cancel()
            } else {
                exit(ExitCode.interrupted)
            }
        }
        source.resume()
        self.source = source
    }
}
