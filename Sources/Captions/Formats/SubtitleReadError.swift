/// Why a subtitle file could not be read; line numbers are 1-based.
public enum SubtitleReadError: Error, CustomStringConvertible, Equatable {
    case binary
    case undecodable(reason: String)
    case missingHeader(format: String, expected: String)
    case malformedTiming(line: Int, text: String)
    case endBeforeStart(line: Int)
    case textWithoutTiming(line: Int)
    case malformedEvent(line: Int, reason: String)

    public var description: String {
        switch self {
        case .binary: return "this is not a text file (it contains NUL bytes); pass an SRT, WebVTT, ASS, TTML or SCC file"
        case .undecodable(let reason): return "the text encoding is not recognised (\(reason)); convert the file to UTF-8"
        case .missingHeader(let format, let expected): return "not a valid \(format) file: it must start with \(expected)"
        case .malformedTiming(let line, let text): return "line \(line): cannot read the timing \"\(text.prefix(80))\""
        case .endBeforeStart(let line): return "line \(line): the cue ends before it starts"
        case .textWithoutTiming(let line): return "line \(line): text without a timing line before it"
        case .malformedEvent(let line, let reason): return "line \(line): \(reason)"
        }
    }
}
