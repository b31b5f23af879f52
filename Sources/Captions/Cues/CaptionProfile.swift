import CapforgeCore
import Foundation

/// How a profile counts characters, for line length and reading speed.
public enum CharacterCounting: String, Codable, Sendable {
    /// Every character one; a wide East Asian character takes two of a line's columns.
    case characters
    /// The Netflix rule for Chinese, Japanese and Korean: a full-width character counts one, a
    /// half-width one (Latin letters, spaces, punctuation) a half.
    case fullWidth
}

/// The rules a caption file is built and checked against.
///
/// Lengths are in display columns (see `TextMetrics`), or full-width characters when `counting`
/// says so; times in milliseconds.
public struct CaptionProfile: Codable, Sendable, Equatable {
    public var name: String
    public var maxCharactersPerLine: Int
    public var maxLines: Int
    /// Hard reading-speed limit, characters per second (line breaks not counted).
    public var maxCharactersPerSecond: Double
    /// The speed cues are lengthened towards when there is room.
    public var targetCharactersPerSecond: Double
    /// Optional limit in words per minute (BBC style guides state speed this way).
    public var maxWordsPerMinute: Double?
    public var minDuration: Double
    public var maxDuration: Double
    /// Smallest gap between cues, in frames at the video's frame rate.
    public var minGapFrames: Double
    /// Gaps up to this many frames are closed to `minGapFrames` ("chaining").
    public var chainGapFrames: Double
    /// How far the out-time may run past the last word to approach the target speed.
    public var maxLinger: Double
    /// A silence between words at least this long always ends a cue.
    public var pauseBreak: Double
    /// nil counts `.characters` (and keeps the settings keys of profiles made before it).
    public var counting: CharacterCounting?

    public init(
        name: String, maxCharactersPerLine: Int = 42, maxLines: Int = 2,
        maxCharactersPerSecond: Double = 20, targetCharactersPerSecond: Double = 17,
        maxWordsPerMinute: Double? = nil, minDuration: Double = 5000.0 / 6.0, maxDuration: Double = 7000,
        minGapFrames: Double = 2, chainGapFrames: Double = 12, maxLinger: Double = 500, pauseBreak: Double = 500,
        counting: CharacterCounting? = nil
    ) {
        self.name = name
        self.maxCharactersPerLine = maxCharactersPerLine
        self.maxLines = maxLines
        self.maxCharactersPerSecond = maxCharactersPerSecond
        self.targetCharactersPerSecond = targetCharactersPerSecond
        self.maxWordsPerMinute = maxWordsPerMinute
        self.minDuration = minDuration
        self.maxDuration = maxDuration
        self.minGapFrames = minGapFrames
        self.chainGapFrames = chainGapFrames
        self.maxLinger = maxLinger
        self.pauseBreak = pauseBreak
        self.counting = counting
    }

    /// Display columns a line may take.
    var lineColumns: Int { counting == .fullWidth ? maxCharactersPerLine * 2 : maxCharactersPerLine }

    /// A line's length as the profile counts it.
    public func length(of line: String) -> Double {
        counting == .fullWidth ? Double(TextMetrics.width(line)) / 2 : Double(TextMetrics.width(line))
    }

    /// The characters reading speed counts (line breaks not counted).
    public func readingLength(_ lines: [String]) -> Double {
        counting == .fullWidth ? Double(lines.reduce(0) { $0 + TextMetrics.width($1) }) / 2 : Double(TextMetrics.characterCount(lines))
    }

    public static let defaultName = "netflix-en"

    public static let netflixEnglish = CaptionProfile(name: "netflix-en")
    public static let bbc = CaptionProfile(
        name: "bbc", maxCharactersPerLine: 37, maxWordsPerMinute: 180)
    public static let dcmp = CaptionProfile(
        name: "dcmp", maxCharactersPerLine: 32, minDuration: 2000)

    public static let builtIn: [CaptionProfile] = [netflixEnglish, bbc, dcmp] + byLanguage.values.sorted { $0.name < $1.name }

    /// `--profile auto`: the rules are chosen by each file's caption language.
    public static let automaticName = "auto"

    public static func named(_ name: String) throws -> CaptionProfile {
        guard let profile = builtIn.first(where: { $0.name == name.lowercased() }) else {
            throw ProfileError.unknown(name: name, available: [automaticName] + builtIn.map(\.name))
        }
        return profile
    }

    /// The profile for captions in `language`: its own Netflix style guide where Capforge has
    /// one (`LanguageProfiles.swift`), else the English rules.
    public static func forLanguage(_ language: Language) -> CaptionProfile {
        byLanguage[language.code] ?? netflixEnglish
    }

    /// Checks that the values can all be met at once, so the cue builder never has to choose
    /// which rule to break.
    public func validate() throws {
        func fail(_ reason: String) -> ProfileError { .invalid(profile: name, reason: reason) }
        // Bounds first, named by field: every later rule (and the cue builder's arithmetic)
        // then works on numbers that cannot overflow.
        let bounds: [(String, Double, ClosedRange<Double>)] = [
            ("maxCharactersPerLine", Double(maxCharactersPerLine), 4...200), ("maxLines", Double(maxLines), 1...10),
            ("maxCharactersPerSecond", maxCharactersPerSecond, 0...1000), ("targetCharactersPerSecond", targetCharactersPerSecond, 0...1000),
            ("maxWordsPerMinute", maxWordsPerMinute ?? 1, 0...10_000),
            ("minDuration", minDuration, 0...60_000), ("maxDuration", maxDuration, 0...600_000),
            ("minGapFrames", minGapFrames, 0...1000), ("chainGapFrames", chainGapFrames, 0...1000),
            ("maxLinger", maxLinger, 0...60_000), ("pauseBreak", pauseBreak, 0...60_000),
        ]
        if let (field, value, range) = bounds.first(where: { !$0.2.contains($0.1) }) {
            throw fail("\(field) is \(value.formatted()), outside \(range.lowerBound.formatted())…\(range.upperBound.formatted())")
        }
        guard maxCharactersPerSecond > 0, targetCharactersPerSecond > 0 else {
            throw fail("reading speeds must be positive")
        }
        guard targetCharactersPerSecond <= maxCharactersPerSecond else {
            throw fail("targetCharactersPerSecond is above maxCharactersPerSecond")
        }
        if let wpm = maxWordsPerMinute, wpm <= 0 { throw fail("maxWordsPerMinute must be positive") }
        guard minDuration > 0, maxDuration >= minDuration else {
            throw fail("durations must satisfy 0 < minDuration <= maxDuration")
        }
        guard minGapFrames >= 0, chainGapFrames >= minGapFrames else {
            throw fail("gaps must satisfy 0 <= minGapFrames <= chainGapFrames")
        }
        guard maxLinger >= 0, pauseBreak > 0 else { throw fail("maxLinger and pauseBreak must be non-negative") }
        let fullCue = Double(maxCharactersPerLine * maxLines)
        guard fullCue * 1000 / maxCharactersPerSecond <= maxDuration else {
            throw fail("a full cue cannot be read within maxDuration at maxCharactersPerSecond")
        }
    }
}

public enum ProfileError: Error, CustomStringConvertible, Equatable {
    case unknown(name: String, available: [String])
    case invalid(profile: String, reason: String)
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unknown(let name, let available):
            return "unknown caption profile '\(name)'; built-in profiles: \(available.joined(separator: ", ")), or pass a profile file"
        case .invalid(let profile, let reason):
            return "caption profile '\(profile)' is not usable: \(reason)"
        case .unreadable(let path, let reason):
            return "cannot read caption profile \(path): \(reason)"
        }
    }
}
