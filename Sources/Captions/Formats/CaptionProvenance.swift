import CapforgeCore
import Foundation

/// What Capforge recorded about captions it wrote, read back from the files, so that a track
/// made from them later (`capforge mux`) can say how they were made, as `caption --mux` does.
public struct CaptionProvenance: Equatable, Sendable {
    public var tier: TranscriptTier
    /// The spoken language when the captions are Whisper's English translation of it.
    public var translatedFrom: Language?

    /// The `Recognition tier:` and `Translated from … (code)` lines of an ASS or WebVTT file's
    /// comments, or for SRT (which has no comments) the JSON written beside it. nil for
    /// captions from elsewhere.
    public static func of(captionsAt url: URL) -> CaptionProvenance? {
        if let head = try? UserFile.head(url, what: "subtitle file", count: 4096),
           let stated = stated(in: String(decoding: head, as: UTF8.self)) {
            return stated
        }
        let json = url.deletingPathExtension().appendingPathExtension(SubtitleFormat.json.fileExtension)
        guard SubtitleFormats.reading(fileExtension: url.pathExtension)?.id == .srt,
              let data = try? UserFile.read(json, what: "caption JSON", limit: 256_000_000),
              let document = try? JSONDecoder().decode(Header.self, from: data), document.format == JSONWriter.formatName else { return nil }
        return CaptionProvenance(tier: document.tier, translatedFrom: document.translatedFrom)
    }

    private struct Header: Decodable {
        var format: String
        var tier: TranscriptTier
        var translatedFrom: Language?
    }

    /// The lines TierSummary writes near the top: the tier, and the source language's code in
    /// the brackets of its `Translated from` line.
    static func stated(in text: String) -> CaptionProvenance? {
        var found: CaptionProvenance?
        for line in text.split(whereSeparator: \.isNewline).prefix(40) {
            let trimmed = line.drop { $0 == ";" || $0 == " " }
            if found == nil, trimmed.hasPrefix(TierSummary.tierLabel) {
                guard let tier = TranscriptTier(rawValue: trimmed.dropFirst(TierSummary.tierLabel.count).trimmingCharacters(in: .whitespaces)) else { return nil }
                found = CaptionProvenance(tier: tier)
            } else if found != nil, trimmed.hasPrefix(TierSummary.translatedLabel),
                      let open = trimmed.firstIndex(of: "("), let close = trimmed[open...].firstIndex(of: ")") {
                found?.translatedFrom = Language(String(trimmed[trimmed.index(after: open)..<close]))
            }
        }
        return found
    }
}
