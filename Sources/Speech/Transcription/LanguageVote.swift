import CapforgeCore

/// Spoken-language detection voted over several windows of speech: detecting on the first
/// window only (a music intro, a silent title card) is the most common failure of peers.
public enum LanguageVote {
    /// Up to three windows of `length` seconds centred at 15 %, 50 % and 85 % of the speech
    /// (measured in speech time, so long pauses do not pull the windows off the talking).
    public static func windows(of audio: any AudioSource, regions: [SpeechRegion], length: Double = windowSeconds) throws -> [MonoAudio] {
        try centres(of: regions, length: length).map { centre in
            let start = max(audio.startTime, min(centre - length / 2, audio.endTime - length))
            return try audio.slice(from: start, to: start + length)
        }
    }

    public static let windowSeconds = 30.0

    /// Where the windows are centred; as many as `windows` hears (the dry run prices them).
    public static func centres(of regions: [SpeechRegion], length: Double = windowSeconds) -> [Double] {
        let total = regions.reduce(0) { $0 + $1.duration }
        guard total > 0 else { return [] }
        var centres: [Double] = []
        for share in [0.15, 0.5, 0.85] {
            var remaining = share * total
            for region in regions {
                if remaining <= region.duration {
                    centres.append(region.start + remaining)
                    break
                }
                remaining -= region.duration
            }
        }
        // Short files: windows that would overlap by more than half are one window.
        var kept: [Double] = []
        for centre in centres where kept.allSatisfy({ abs($0 - centre) >= length / 2 }) { kept.append(centre) }
        return kept
    }

    /// The language with the highest summed probability across the windows' guesses.
    public static func winner(_ guesses: [LanguageGuess]) -> LanguageGuess? {
        var totals: [Language: Double] = [:]
        for guess in guesses { totals[guess.language, default: 0] += guess.probability }
        guard let best = totals.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }) else { return nil }
        return LanguageGuess(language: best.key, probability: best.value / Double(guesses.count))
    }
}
