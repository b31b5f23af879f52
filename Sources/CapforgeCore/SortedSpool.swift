import Foundation

/// A value a `SortedSpool` writes to its temporary file and reads back, field by field in the
/// same order.
public protocol Spoolable: Sendable {
    func spool(into writer: inout SpoolWriter)
    init(unspooling reader: inout SpoolReader)
}

public struct SpoolWriter {
    fileprivate var bytes: [UInt8] = []

    public mutating func write(_ value: Int) {
        withUnsafeBytes(of: Int64(value).littleEndian) { bytes += $0 }
    }

    public mutating func write(_ text: String) {
        write(text.utf8.count)
        bytes += text.utf8
    }

    /// `value` with its length before it, as runs hold values.
    fileprivate mutating func record(_ value: some Spoolable) {
        let start = bytes.count
        write(0)
        value.spool(into: &self)
        withUnsafeBytes(of: Int64(bytes.count - start - 8).littleEndian) { bytes.replaceSubrange(start..<start + 8, with: $0) }
    }
}

/// Reads what a `SpoolWriter` wrote: only the spool's own file, so the bytes are trusted.
public struct SpoolReader {
    fileprivate let bytes: ArraySlice<UInt8>
    fileprivate var position: Int

    public mutating func readInt() -> Int {
        defer { position += 8 }
        return Int(Int64(littleEndian: bytes[position..<position + 8].withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }))
    }

    public mutating func readString() -> String {
        let count = readInt()
        defer { position += count }
        return String(decoding: bytes[position..<position + count], as: UTF8.self)
    }
}

/// The temporary file a spool sorts through could not be made, written or read back.
public struct SpoolError: Error, CustomStringConvertible, Equatable {
    public var folder: String
    public var errno: Int32

    public var description: String {
        "cannot use a temporary file in \(folder) to sort a large file (\(String(cString: strerror(errno)))); "
            + (errno == ENOSPC || errno == EDQUOT ? "free some space there, or " : "") + "set TMPDIR to a folder with room"
    }

    fileprivate init(folder: String, errno: Int32) {
        self.folder = folder
        self.errno = errno
    }

    fileprivate init(folder: String, _ error: FileWriteError) {
        switch error {
        case .diskFull: self.init(folder: folder, errno: ENOSPC)
        case .failed(_, let code): self.init(folder: folder, errno: code)
        }
    }
}

/// Values put in order in bounded memory, for inputs too large to sort whole (a subtitle file of
/// millions of cues). They are taken in chunks of about `chunkBytes`, each sorted and written to
/// an unnamed temporary file (nothing is left behind however the process ends), and the chunks
/// are merged as the values are read back. Stable: values that compare equal come out in the
/// order they went in. Values that never fill a chunk stay in memory, and a chunk that starts
/// where the one before ended continues its run, so an input already in order is read back
/// front to back.
public final class SortedSpool<Element: Spoolable>: Sendable {
    private let inMemory: [Element]
    private let file: SpoolFile?
    /// Byte ranges of the file, each a sorted run, in the order their values went in.
    private let runs: [Range<Int>]
    private let isOrdered: @Sendable (Element, Element) -> Bool

    /// Values already in memory, sorted there.
    public convenience init(sorting values: [Element], by isOrdered: @escaping @Sendable (Element, Element) -> Bool) {
        self.init(isOrdered: isOrdered, inMemory: Self.stablySorted(values, by: isOrdered), file: nil, runs: [])
    }

    /// `fill` is called once, with the function that takes each value.
    public convenience init(by isOrdered: @escaping @Sendable (Element, Element) -> Bool, chunkBytes: Int = 1 << 20,
                            fill: ((Element) throws -> Void) throws -> Void) throws {
        var builder = Builder(isOrdered: isOrdered, chunkBytes: chunkBytes)
        try fill { try builder.add($0) }
        guard builder.file != nil else {
            self.init(sorting: builder.chunk, by: isOrdered)
            return
        }
        try builder.spill()
        self.init(isOrdered: isOrdered, inMemory: [], file: builder.file, runs: builder.runs)
    }

    private init(isOrdered: @escaping @Sendable (Element, Element) -> Bool, inMemory: [Element], file: SpoolFile?, runs: [Range<Int>]) {
        self.isOrdered = isOrdered
        self.inMemory = inMemory
        self.file = file
        self.runs = runs
    }

    /// Calls `body` with each value in order.
    public func forEach(_ body: (Element) throws -> Void) throws {
        var values = makeIterator()
        while let value = try values.next() { try body(value) }
    }

    public func makeIterator() -> Iterator { Iterator(self) }

    /// Reads the values in order: from memory, or merging the runs (a heap of each run's next value).
    public struct Iterator {
        private let spool: SortedSpool
        private var index = 0
        private var readers: [RunReader]
        private var heads: [Element?]
        private var heap: [Int] = []
        private var started = false

        fileprivate init(_ spool: SortedSpool) {
            self.spool = spool
            // Reads of 64 KB, less when there are many runs: an iterator takes about a megabyte at
            // most however many there are, and a mux reading 63 tracks at once takes little.
            let buffer = max(4096, min(1 << 16, (1 << 20) / max(spool.runs.count, 1)))
            readers = spool.file.map { file in spool.runs.map { RunReader(file: file, range: $0, buffer: buffer) } } ?? []
            heads = Array(repeating: nil, count: readers.count)
        }

        public mutating func next() throws -> Element? {
            guard spool.file != nil else {
                defer { index += 1 }
                return index < spool.inMemory.count ? spool.inMemory[index] : nil
            }
            if !started {
                started = true
                for run in readers.indices {
                    heads[run] = try readers[run].next()
                    if heads[run] != nil { push(run) }
                }
            }
            guard let run = heap.first else { return nil }
            let value = heads[run]
            heads[run] = try readers[run].next()
            if heads[run] == nil {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            siftDown(0)
            return value
        }

        /// Whether run `a`'s next value comes before run `b`'s: by value, then by run (runs are in input order).
        private func precedes(_ a: Int, _ b: Int) -> Bool {
            guard let x = heads[a], let y = heads[b] else { return false }
            return spool.isOrdered(x, y) || !spool.isOrdered(y, x) && a < b
        }

        private mutating func push(_ run: Int) {
            heap.append(run)
            var child = heap.count - 1
            while child > 0, precedes(heap[child], heap[(child - 1) / 2]) {
                heap.swapAt(child, (child - 1) / 2)
                child = (child - 1) / 2
            }
        }

        private mutating func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1, right = left + 1
                var first = parent
                if left < heap.count, precedes(heap[left], heap[first]) { first = left }
                if right < heap.count, precedes(heap[right], heap[first]) { first = right }
                guard first != parent else { return }
                heap.swapAt(parent, first)
                parent = first
            }
        }
    }

    private static func stablySorted(_ values: [Element], by isOrdered: (Element, Element) -> Bool) -> [Element] {
        values.indices.sorted { isOrdered(values[$0], values[$1]) || !isOrdered(values[$1], values[$0]) && $0 < $1 }.map { values[$0] }
    }

    private struct Builder {
        let isOrdered: (Element, Element) -> Bool
        let chunkBytes: Int
        var chunk: [Element] = []
        var chunkSize = 0
        var file: SpoolFile?
        var runs: [Range<Int>] = []
        var size = 0
        /// The last value written, which a run continuing it must not precede.
        var last: Element?
        /// Measures each value as it comes (a chunk is bounded by what its values take on disk).
        var scratch = SpoolWriter()

        mutating func add(_ value: Element) throws {
            scratch.bytes.removeAll(keepingCapacity: true)
            scratch.record(value)
            chunkSize += scratch.bytes.count
            chunk.append(value)
            if chunkSize >= chunkBytes { try spill() }
        }

        /// Writes the chunk sorted, as a run of its own or continuing the last.
        mutating func spill() throws {
            let sorted = SortedSpool.stablySorted(chunk, by: isOrdered)
            chunk.removeAll(keepingCapacity: true)
            chunkSize = 0
            guard let first = sorted.first else { return }
            let file = try self.file ?? SpoolFile()
            self.file = file
            var writer = SpoolWriter()
            sorted.forEach { writer.record($0) }
            try file.append(writer.bytes)
            let start = size
            size += writer.bytes.count
            if let last, !isOrdered(first, last), let run = runs.popLast() {
                runs.append(run.lowerBound..<size)
            } else {
                runs.append(start..<size)
            }
            last = sorted.last
        }
    }

    /// Reads one run's values a buffer at a time.
    private struct RunReader {
        let file: SpoolFile
        var position: Int
        let end: Int
        /// Bytes read at a time (more for a longer value).
        let reads: Int
        var buffer: [UInt8] = []
        var consumed = 0

        init(file: SpoolFile, range: Range<Int>, buffer: Int) {
            self.file = file
            position = range.lowerBound
            end = range.upperBound
            reads = buffer
        }

        mutating func next() throws -> Element? {
            guard consumed < buffer.count || position < end else { return nil }
            try fill(8)
            var reader = SpoolReader(bytes: buffer[...], position: consumed)
            let length = reader.readInt()
            try fill(8 + length)
            reader = SpoolReader(bytes: buffer[...], position: consumed + 8)
            consumed += 8 + length
            return Element(unspooling: &reader)
        }

        /// At least `count` unread bytes in the buffer.
        private mutating func fill(_ count: Int) throws {
            guard buffer.count - consumed < count else { return }
            buffer.removeFirst(consumed)
            consumed = 0
            let wanted = min(max(count - buffer.count, reads), end - position)
            // Only a file changed under the spool ends a run inside a value.
            guard wanted >= count - buffer.count else { throw SpoolError(folder: file.folder, errno: EIO) }
            let old = buffer.count
            buffer += repeatElement(0, count: wanted)
            var done = 0
            try buffer.withUnsafeMutableBytes { raw in
                while done < wanted {
                    let n = pread(file.fd, raw.baseAddress! + old + done, wanted - done, off_t(position + done))
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { throw SpoolError(folder: file.folder, errno: n < 0 ? errno : EIO) }
                    done += n
                }
            }
            position += wanted
        }
    }
}

/// An unnamed temporary file, closed (and so gone) when the last spool holding it is.
private final class SpoolFile: Sendable {
    let fd: Int32
    let folder: String

    init() throws {
        let temporary = StateFolder.temporary
        folder = temporary.url.path
        do {
            fd = try temporary.unnamedFile(prefix: "sort")
        } catch let error as FileWriteError {
            throw SpoolError(folder: folder, error)
        }
    }

    deinit { close(fd) }

    func append(_ bytes: [UInt8]) throws {
        do {
            try bytes.withUnsafeBytes { try AtomicFile.writeAll($0, to: fd, path: folder) }
        } catch let error as FileWriteError {
            throw SpoolError(folder: folder, error)
        }
    }
}
