import CapforgeCore

/// How `--tier arbitrate` settles what the modern tier doubts: only the stretches of words whose
/// calibrated confidence is below `acceptance` are heard again by the basic tier, so the cost
/// follows the doubt, not the length of the file; each stretch then goes to whichever engine is
/// more confident on the shared calibrated scale, with ties to the modern tier.
public struct ArbitrationRules: Sendable, Equatable, Codable, Hashable {
    /// Modern words below this calibrated confidence are doubted (`--accept`). Lower than the
    /// low-confidence mark: on held-out English (Benchmarks/arbitrate) PocketSphinx never improved
    /// a stretch Whisper doubted, and at 0.84 the second opinions cost 2.0x (clean) and 4.9x (noisy)
    /// the modern run; 0.5 keeps them to the words Whisper most doubts.
    public var acceptance: Double = 0.5
    /// The rival must be more confident than the modern words by more than this (`--tie-margin`).
    /// 0.2: every stretch PocketSphinx won at 0.05 made the captions worse; it needs a clear lead.
    public var tieMargin: Double = 0.2
    /// A rival stretch with fewer letters never wins: a lone "a" is not a reading (`--min-length`).
    public var minimumCharacters: Int = 4
    /// Audio either side of a doubted stretch that the rival hears too, so it decodes words in
    /// context rather than cut-off syllables (seconds).
    public var context: Double = 1.0
    /// Doubted words less than this far apart form one stretch (seconds).
    public var joinGap: Double = 1.0

    public init() {}

    /// The doubted stretches of `words` (index ranges, in order).
    public func doubtedStretches(_ words: [Word]) -> [Range<Int>] {
        var stretches: [Range<Int>] = []
        for (index, word) in words.enumerated() where word.score < acceptance {
            if let last = stretches.last, word.start - words[last.upperBound - 1].end < joinGap {
                // Words between two doubted ones are part of the stretch: it is replaced whole.
                stretches[stretches.count - 1] = last.lowerBound..<(index + 1)
            } else {
                stretches.append(index..<(index + 1))
            }
        }
        return stretches
    }

    /// The rule that settles a stretch: `modern` its words, `rival` the basic tier's words there.
    public func decide(modern: [Word], rival: [Word], glossary: Glossary) -> ArbitrationRule {
        if modern.contains(where: glossary.knows) { return .glossaryTerm }
        guard rival.reduce(0, { $0 + $1.text.filter(\.isLetter).count }) >= minimumCharacters else { return .rivalTooShort }
        let difference = Self.meanScore(rival) - Self.meanScore(modern)
        if difference > tieMargin { return .rivalMoreConfident }
        return difference >= -tieMargin ? .tie : .modernMoreConfident
    }

    public static func meanScore(_ words: [Word]) -> Double {
        words.isEmpty ? 0 : words.reduce(0) { $0 + $1.score } / Double(words.count)
    }
}
