import Foundation
import Synchronization

/// 16 kHz mono audio on the file's timeline that can be read a piece at a time, so a long
/// recording never has to be in memory whole.
public protocol AudioSource: Sendable {
    var startTime: Double { get }
    var duration: Double { get }
    /// The samples covering `[from, to)` seconds on the file's timeline, clamped to what exists.
    func slice(from: Double, to: Double) throws -> MonoAudio
    /// Spans (seconds on the file's timeline, in order) known to be digital silence because no
    /// audio was there to decode: a leading offset, gaps between packets. Detection skips them.
    var silentSpans: [Range<Double>] { get }
}

extension AudioSource {
    public var endTime: Double { startTime + duration }
}

extension MonoAudio: AudioSource {
    public var silentSpans: [Range<Double>] { [] }
}

/// Extracted audio kept in an unlinked temporary file: it takes disk, not memory, and vanishes
/// with the process however it ends (even SIGKILL). Written once front to back, then read in slices.
public final class SpooledAudio: AudioSource, Sendable {
    public let startTime: Double
    private let fd: Int32
    private let path: String
    /// The write buffer and the file's length: extraction appends while slices are read.
    private struct State {
        var pending: [Float] = []
        var count = 0
        /// Sample ranges appended as silence: holes in the file, never written.
        var silence: [Range<Int>] = []
    }
    private let state = Mutex(State())

    /// Flushed to the file at this many samples (4 MB).
    static let bufferSamples = 1 << 20

    /// A spool in `folder` (created when missing), with no name: nothing is left behind
    /// however the process ends.
    public init(in folder: StateFolder, startTime: Double = 0) throws {
        self.startTime = startTime
        path = folder.url.path
        fd = try folder.unnamedFile(prefix: "audio")
    }

    deinit { close(fd) }

    public var duration: Double { Double(state.withLock { $0.count }) / Double(MonoAudio.sampleRate) }

    public func append(_ samples: ArraySlice<Float>) throws {
        try state.withLock { state in
            state.pending.append(contentsOf: samples)
            state.count += samples.count
            if state.pending.count >= Self.bufferSamples { try flush(&state) }
        }
    }

    /// `samples` of silence, kept as a hole in the file (a sparse file takes no disk for it,
    /// and never memory): a file whose audio starts ten hours in spools only its sound.
    public func appendSilence(_ samples: Int) throws {
        guard samples > 0 else { return }
        try state.withLock { state in
            try flush(&state)
            if let last = state.silence.last, last.upperBound == state.count {
                state.silence[state.silence.count - 1] = last.lowerBound..<state.count + samples
            } else {
                state.silence.append(state.count..<state.count + samples)
            }
            state.count += samples
            guard lseek(fd, off_t(samples) * 4, SEEK_CUR) >= 0 else { throw AtomicFile.makeError(path: path, errno: errno) }
        }
    }

    public var silentSpans: [Range<Double>] {
        let rate = Double(MonoAudio.sampleRate)
        return state.withLock { $0.silence }.map { startTime + Double($0.lowerBound) / rate..<startTime + Double($0.upperBound) / rate }
    }

    /// Writes what is buffered; slices read the file, so call this once extraction ends.
    public func finish() throws {
        try state.withLock { state in
            try flush(&state)
            // A hole at the end has no write after it to give the file its length.
            guard ftruncate(fd, off_t(state.count) * 4) == 0 else { throw AtomicFile.makeError(path: path, errno: errno) }
        }
    }

    public func slice(from: Double, to: Double) throws -> MonoAudio {
        let range = MonoAudio.sampleRange(from: from, to: to, startTime: startTime, count: state.withLock { $0.count })
        let lo = range.lowerBound
        var samples = [Float](repeating: 0, count: range.count)
        try samples.withUnsafeMutableBytes { raw in
            var done = 0
            while done < raw.count {
                let n = pread(fd, raw.baseAddress! + done, raw.count - done, off_t(lo * 4 + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw AtomicFile.makeError(path: path, errno: n < 0 ? errno : EIO) }
                done += n
            }
        }
        return MonoAudio(samples: samples, startTime: startTime + Double(lo) / Double(MonoAudio.sampleRate))
    }

    /// Writes the buffer; called with the lock held.
    private func flush(_ state: inout State) throws {
        guard !state.pending.isEmpty else { return }
        try state.pending.withUnsafeBytes { try AtomicFile.writeAll($0, to: fd, path: path) }
        state.pending.removeAll(keepingCapacity: true)
    }
}
