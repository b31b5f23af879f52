import CapforgeCore
import Foundation

/// Timed Text for streaming and broadcast delivery: the IMSC 1.1 Text profile of TTML (`.ttml`,
/// what streaming platforms take) or EBU-TT-D (`.ebu-tt-d.xml`, what European broadcasters take).
/// The tier summary travels in the head's metadata; cues with basic-tier words get the `basic`
/// style (italic, light blue, as the ASS `Basic` style), so a player shows the flag.
public struct TTMLWriter: TextSubtitleWriter {
    public enum Profile: Sendable {
        case imsc11Text, ebuTTD
    }

    public var cues: [Cue]
    public var transcript: Transcript
    public var profile: Profile
    /// The video's frame rate, declared in IMSC (`ttp:frameRate`, with `ttp:frameRateMultiplier`
    /// for the NTSC rates); nil leaves it out.
    public var frameRate: Double?

    public init(cues: [Cue], transcript: Transcript, profile: Profile, frameRate: Double?) {
        self.cues = cues
        self.transcript = transcript
        self.profile = profile
        self.frameRate = frameRate
    }

    static let imsc11TextProfile = "http://www.w3.org/ns/ttml/profile/imsc1.1/text"
    static let ebuTTDStandard = "urn:ebu:tt:distribution:2014-01"

    public func render() -> String {
        var root = [
            "xmlns=\"http://www.w3.org/ns/ttml\"", "xmlns:ttp=\"http://www.w3.org/ns/ttml#parameter\"",
            "xmlns:tts=\"http://www.w3.org/ns/ttml#styling\"", "xmlns:ttm=\"http://www.w3.org/ns/ttml#metadata\"",
        ]
        if profile == .ebuTTD { root += ["xmlns:ebuttm=\"urn:ebu:tt:metadata\"", "xmlns:ebutts=\"urn:ebu:tt:style\""] }
        root += ["xml:lang=\"\(Self.escape(transcript.language.code))\"", "ttp:timeBase=\"media\""]
        switch profile {
        case .imsc11Text:
            root.append("ttp:contentProfiles=\"\(Self.imsc11TextProfile)\"")
            if let (rate, multiplier) = frameRate.flatMap(Self.frameRate) {
                root.append("ttp:frameRate=\"\(rate)\"")
                if let multiplier { root.append("ttp:frameRateMultiplier=\"\(multiplier)\"") }
            }
            root.append("ttp:cellResolution=\"32 15\"")
        case .ebuTTD:
            root.append("ttp:cellResolution=\"50 30\"")
        }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tt \(root.joined(separator: " "))>\n<head>\n<metadata>\n"
        if profile == .ebuTTD {
            xml += "<ebuttm:documentMetadata><ebuttm:conformsToStandard>\(Self.ebuTTDStandard)</ebuttm:conformsToStandard></ebuttm:documentMetadata>\n"
        }
        let noCues = cues.isEmpty ? ["No speech was found: this file has no cues"] : []
        for line in TierSummary(transcript: transcript).lines + noCues { xml += "<ttm:desc>\(Self.escape(line))</ttm:desc>\n" }
        xml += "</metadata>\n<styling>\n"
        xml += "<style xml:id=\"default\" tts:fontFamily=\"\(profile == .ebuTTD ? "Verdana, Arial, Tiresias, sansSerif" : "proportionalSansSerif")\" "
            + "tts:fontSize=\"100%\" tts:lineHeight=\"125%\" tts:textAlign=\"center\" tts:color=\"#FFFFFF\" tts:backgroundColor=\"#000000C2\"/>\n"
        xml += "<style xml:id=\"basic\" tts:fontStyle=\"italic\" tts:color=\"#B4E6FF\"/>\n</styling>\n<layout>\n"
        xml += "<region xml:id=\"bottom\" tts:origin=\"10% 10%\" tts:extent=\"80% 80%\" tts:displayAlign=\"after\"/>\n</layout>\n</head>\n"
        xml += "<body><div region=\"bottom\">\n"
        for (index, cue) in cues.enumerated() {
            let style = cue.tier == .basic ? "default basic" : "default"
            let lines = cue.lines.map { "<span>\(Self.escape($0))</span>" }.joined(separator: "<br/>")
            xml += "<p xml:id=\"c\(index + 1)\" begin=\"\(Self.time(cue.start))\" end=\"\(Self.time(cue.end))\" style=\"\(style)\">\(lines)</p>\n"
        }
        return xml + "</div></body>\n</tt>\n"
    }

    /// `HH:MM:SS.mmm`: media time, the one expression both profiles take.
    static func time(_ milliseconds: Int) -> String {
        let ms = max(0, milliseconds)
        return String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }

    /// IMSC's integer frame rate and multiplier: 29.97 is 30 × 1000/1001.
    static func frameRate(_ rate: Double) -> (Int, String?)? {
        guard rate.isFinite, rate > 0 else { return nil }
        let whole = Int(rate.rounded())
        if abs(rate - Double(whole)) < 0.001 { return (whole, nil) }
        let ntsc = Int((rate * 1001 / 1000).rounded())
        return abs(Double(ntsc) * 1000 / 1001 - rate) < 0.01 ? (ntsc, "1000 1001") : (whole, nil)
    }

    /// Text for XML: the markup characters escaped, and the control characters XML 1.0 cannot hold dropped.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t": out += " "
            default:
                let value = scalar.value
                if value < 0x20 || (0xFFFE...0xFFFF).contains(value) || (0xD800...0xDFFF).contains(value) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
