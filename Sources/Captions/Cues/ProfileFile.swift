import CapforgeCore
import Foundation

/// A custom profile as JSON: a built-in `base` (default `netflix-en`) plus any fields to
/// override, named as in `CaptionProfile`, e.g.
/// `{"name": "kids", "base": "dcmp", "maxCharactersPerSecond": 12}`.
extension CaptionProfile {
    public static func load(from url: URL) throws -> CaptionProfile {
        let data = try UserFile.read(url, what: "caption profile", limit: 1_000_000)
        let overrides: Overrides
        do {
            overrides = try JSONDecoder().decode(Overrides.self, from: data)
        } catch let error as DecodingError {
            throw ProfileError.unreadable(path: url.path, reason: describe(error))
        }
        var profile = try named(overrides.base ?? defaultName)
        profile.name = overrides.name ?? url.deletingPathExtension().lastPathComponent
        overrides.apply(to: &profile)
        try profile.validate()
        return profile
    }

    private struct Overrides: Decodable {
        var name: String?
        var base: String?
        var maxCharactersPerLine: Int?
        var maxLines: Int?
        var maxCharactersPerSecond: Double?
        var targetCharactersPerSecond: Double?
        var maxWordsPerMinute: Double?
        var minDuration: Double?
        var maxDuration: Double?
        var minGapFrames: Double?
        var chainGapFrames: Double?
        var maxLinger: Double?
        var pauseBreak: Double?

        func apply(to profile: inout CaptionProfile) {
            if let maxCharactersPerLine { profile.maxCharactersPerLine = maxCharactersPerLine }
            if let maxLines { profile.maxLines = maxLines }
            if let maxCharactersPerSecond { profile.maxCharactersPerSecond = maxCharactersPerSecond }
            if let targetCharactersPerSecond { profile.targetCharactersPerSecond = targetCharactersPerSecond }
            if let maxWordsPerMinute { profile.maxWordsPerMinute = maxWordsPerMinute }
            if let minDuration { profile.minDuration = minDuration }
            if let maxDuration { profile.maxDuration = maxDuration }
            if let minGapFrames { profile.minGapFrames = minGapFrames }
            if let chainGapFrames { profile.chainGapFrames = chainGapFrames }
            if let maxLinger { profile.maxLinger = maxLinger }
            if let pauseBreak { profile.pauseBreak = pauseBreak }
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context):
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            return field.isEmpty ? context.debugDescription : "field '\(field)': \(context.debugDescription)"
        case .dataCorrupted(let context):
            return "not valid JSON (\(context.debugDescription))"
        @unknown default:
            return "not a valid profile"
        }
    }
}
