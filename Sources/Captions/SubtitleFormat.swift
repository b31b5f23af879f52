/// The subtitle formats Capforge writes and reads (JSON is written only).
public enum SubtitleFormat: String, Codable, Sendable, CaseIterable {
    case srt, vtt, ass, json
    /// IMSC 1.1 Text (TTML) and EBU-TT-D, for streaming and broadcast delivery.
    case ttml, ebuTTD = "ebu-tt-d"
    /// SCC (CEA-608 pop-on captions, channel 1); EBU STL (written only).
    case scc, stl

    public var fileExtension: String {
        switch self {
        case .ebuTTD: return "ebu-tt-d.xml"
        default: return rawValue
        }
    }

    /// Whether Capforge reads it (JSON and STL are written only).
    public var isReadable: Bool { self != .json && self != .stl }

    /// The readable format a file extension names, if any (`.ssa` reads as ASS).
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "srt": self = .srt
        case "vtt", "webvtt": self = .vtt
        case "ass", "ssa": self = .ass
        case "ttml", "dfxp", "xml": self = .ttml
        case "scc": self = .scc
        default: return nil
        }
    }
}
