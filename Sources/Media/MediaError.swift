import CFFmpeg
import Foundation

/// Every way reading or writing media can fail, with a message a user can act on.
public enum MediaError: Error, CustomStringConvertible, Equatable {
    case notFound(path: String)
    case notAFile(path: String, kind: String)
    case unreadable(path: String, reason: String)
    case empty(path: String)
    case unrecognised(path: String, reason: String)
    case noAudio(path: String)
    case noVideo(path: String)
    case noSuchStream(path: String, index: Int, audioStreams: [Int])
    case unknownLanguage(path: String, requested: String, present: [String])
    case decoderMissing(path: String, codec: String)
    case library(path: String, operation: String, code: Int32, message: String)
    case implausibleAudio(path: String, reason: String)
    case encoderMissing(name: String)
    case unsupportedOutput(path: String)

    public var description: String {
        switch self {
        case .notFound(let path):
            return "\(path): no such file"
        case .notAFile(let path, let kind):
            return "\(path): is a \(kind), not a media file"
        case .unreadable(let path, let reason):
            return "\(path): cannot be read (\(reason)); check its permissions"
        case .empty(let path):
            return "\(path): the file is empty"
        case .unrecognised(let path, let reason):
            return "\(path): not a recognisable media file (\(reason)); it may be corrupt or truncated"
        case .noAudio(let path):
            return "\(path): has no audio track, so there is nothing to caption"
        case .noVideo(let path):
            return "\(path): has no video track, so there are no shot changes to find"
        case .noSuchStream(let path, let index, let streams):
            let list = streams.map(String.init).joined(separator: ", ")
            return "\(path): stream \(index) is not an audio stream; audio streams: \(list.isEmpty ? "none" : list)"
        case .unknownLanguage(let path, let requested, let present):
            let list = present.isEmpty ? "no audio track carries a language tag" : "languages present: \(present.joined(separator: ", "))"
            return "\(path): no audio track in language '\(requested)'; \(list)"
        case .decoderMissing(let path, let codec):
            return "\(path): no decoder for codec '\(codec)' in this FFmpeg build"
        case .library(let path, let operation, _, let message):
            return "\(path): \(operation) failed: \(message)"
        case .implausibleAudio(let path, let reason):
            return "\(path): \(reason)"
        case .encoderMissing(let name):
            return "this FFmpeg build has no encoder '\(name)'; list them with `ffmpeg -encoders`"
        case .unsupportedOutput(let path):
            return "\(path): cannot tell the output format from the extension; use .mp4, .mkv or .mov"
        }
    }
}

/// Text for an FFmpeg error code (`av_err2str` is a macro Swift cannot import).
func avErrorString(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: Int(AV_ERROR_MAX_STRING_SIZE))
    return buffer.withUnsafeMutableBufferPointer { buf in
        shim_err2str(code, buf.baseAddress, buf.count)
        return String(cString: buf.baseAddress!)
    }
}

/// Throws a typed error for a negative FFmpeg return code.
@discardableResult
func check(_ code: Int32, _ operation: String, path: String) throws -> Int32 {
    guard code < 0 else { return code }
    throw MediaError.library(path: path, operation: operation, code: code, message: avErrorString(code))
}
