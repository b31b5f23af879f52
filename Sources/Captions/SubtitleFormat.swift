/// The subtitle formats Capforge writes and reads (JSON is written only).
public enum SubtitleFormat: String, Codable, Sendable, CaseIterable {
    case srt, vtt, ass, json

    public var fileExtension: String { rawValue }

    /// The readable format a file extension names, if any (`.ssa` reads as ASS).
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "srt": self = .srt
        case "vtt", "webvtt": self = .vtt
        case "ass", "ssa": self = .ass
        default: return nil
        }
    }
}
