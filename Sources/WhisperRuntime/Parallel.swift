import Dispatch

/// Row-wise work between matrix products, split over the threads the products use: on two
/// cores the softmax and GELU of a single thread took a third of an encoder pass.
enum Parallel {
    /// Calls `body` once for each row in 0..<count, rows split into contiguous runs, one per thread.
    static func rows(_ count: Int, _ body: (Int) -> Void) {
        let threads = min(MatrixProduct.threads, max(1, count / minimumRows))
        guard threads > 1 else {
            for row in 0 ..< count { body(row) }
            return
        }
        withoutActuallyEscaping(body) { body in
            // Each thread writes rows no other thread touches; concurrentPerform returns once all are done.
            nonisolated(unsafe) let body = body
            DispatchQueue.concurrentPerform(iterations: threads) { part in
                for row in count * part / threads ..< count * (part + 1) / threads { body(row) }
            }
        }
    }

    /// Fewer rows than this a thread are not worth waking one for (a decoding step's one row).
    private static let minimumRows = 16
}
