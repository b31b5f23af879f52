import CapforgeCore
import Foundation

/// Reads a model file front to back, with every read and skip checked against its size.
/// Only regular files are opened: a FIFO given as a model would block forever.
final class ModelReader {
    private let handle: FileHandle
    private let path: String
    let size: Int
    private var offset = 0
    private var buffer = Data()
    private var bufferStart = 0

    /// `missingHint`: what to do when there is no file at `url`.
    init(_ url: URL, missingHint: String = "import one with `capforge models import DIR` or check --model") throws {
        path = url.path
        do {
            (handle, size) = try UserFile.openRegular(url, what: "model")
        } catch UserFileError.missing {
            throw SpeechError.modelMissing(path: path, hint: missingHint)
        } catch UserFileError.notAFile {
            throw SpeechError.modelInvalid(path: path, reason: "it is not a regular file")
        } catch UserFileError.unreadable(_, _, let reason) {
            throw SpeechError.modelInvalid(path: path, reason: "it cannot be read (\(reason))")
        }
    }

    deinit { try? handle.close() }

    var atEnd: Bool { offset >= size }
    var position: Int { offset }

    func int32(_ what: String) throws -> Int {
        let raw = try bytes(4, what)
        return Int(Int32(littleEndian: raw.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }))
    }

    func bytes(_ count: Int, _ what: String) throws -> Data {
        try ensure(count, what)
        if offset < bufferStart || offset + count > bufferStart + buffer.count {
            try handle.seek(toOffset: UInt64(offset))
            buffer = try handle.read(upToCount: max(count, 1 << 16)) ?? Data()
            bufferStart = offset
            guard buffer.count >= count else { throw truncated(what) }
        }
        let start = buffer.startIndex + (offset - bufferStart)
        offset += count
        return buffer.subdata(in: start..<start + count)
    }

    func skip(_ count: Int, _ what: String) throws {
        try ensure(count, what)
        offset += count
    }

    private func ensure(_ count: Int, _ what: String) throws {
        guard count >= 0, count <= size - offset else { throw truncated(what) }
    }

    private func truncated(_ what: String) -> SpeechError {
        .modelInvalid(path: path, reason: "it is truncated or corrupt: \(what) runs past the end of the file (\(size) bytes)")
    }
}
