import CapforgeCore
import Foundation

/// What Capforge recorded about captions it wrote, read back from the files, so that a track
/// made from them later (`capforge mux`) can say how they were made.
public enum CaptionProvenance {
    /// The recognition tier of Capforge's captions: the `Recognition tier:` line of an ASS or
    /// WebVTT file's comments, or for SRT (which has no comments) the JSON written beside it.
    /// nil for captions from elsewhere.
    public static func tier(ofCaptionsAt url: URL) -> TranscriptTier? {
        if let head = try? UserFile.head(url, what: "subtitle file", count: 4096),
           let tier = statedTier(in: String(decoding: head, as: UTF8.self)) {
            return tier
        }
        let json = url.deletingPathExtension().appendingPathExtension(SubtitleFormat.json.fileExtension)
        guard SubtitleFormat(fileExtension: url.pathExtension) == .srt,
              let data = try? UserFile.read(json, what: "caption JSON", limit: 256_000_000),
              let document = try? JSONDecoder().decode(Header.self, from: data), document.format == JSONWriter.formatName else { return nil }
        return document.tier
    }

    private struct Header: Decodable {
        var format: String
        var tier: TranscriptTier
    }

    /// The first `Recognition tier: X` line near the top (TierSummary writes it there).
    static func statedTier(in text: String) -> TranscriptTier? {
        for line in text.split(whereSeparator: \.isNewline).prefix(40) {
            let trimmed = line.drop { $0 == ";" || $0 == " " }
            guard trimmed.hasPrefix(TierSummary.tierLabel) else { continue }
            return TranscriptTier(rawValue: trimmed.dropFirst(TierSummary.tierLabel.count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
