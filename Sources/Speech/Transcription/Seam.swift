import CapforgeCore

/// Where two windows of one stretch of speech overlap, both heard the words there, and each word
/// must come out once with none lost. Cutting at the overlap's middle by time loses words when
/// the windows disagree about when they were said: the earlier window stops decoding early near
/// its cut-off end and the later one times the words before the middle. So the windows are
/// joined at a word both heard at the same moment (an anchor): the earlier window's words up to
/// it, the later window's after it. Without an anchor the transcriber asks a third window centred
/// on the overlap (`ChunkedTranscriber`), and failing that the middle decides.
enum Seam {
    /// Two copies of a word at most this far apart (seconds, by start) are the same utterance.
    static let anchorDrift = 0.5
    /// A word both windows heard within this (seconds), or whose later copy collapsed to nothing,
    /// is the same word said once.
    static let duplicateTolerance = 0.35
    /// Window edges closer than this (seconds) are one moment: a window's edges come from
    /// slices rounded to the sample, and far into a file (audio that starts ten hours in) the
    /// same time computed two ways differs in its last bits.
    static let sameEdge = 0.001

    /// Whether `heardEnd` falls short of `edge` by more than rounding.
    static func stopsShort(_ heardEnd: Double, of edge: Double) -> Bool { heardEnd < edge - sameEdge }

    /// `earlier` and `later` (the words of two windows overlapping over `overlap`) trimmed to
    /// meet once; `middle` is where they meet without an anchor.
    static func joined(_ earlier: [Word], _ later: [Word], overlap: ClosedRange<Double>, middle: Double) -> (earlier: [Word], later: [Word]) {
        anchored(earlier, later, overlap: overlap) ?? cut(earlier, later, at: middle)
    }

    /// Each word to the window whose side of `middle` its centre lies on.
    static func cut(_ earlier: [Word], _ later: [Word], at middle: Double) -> (earlier: [Word], later: [Word]) {
        (earlier.filter { $0.middle < middle }, later.filter { $0.middle >= middle })
    }


    /// The two windows trimmed to meet at their anchor; nil when they share none (they disagree
    /// about what was said in the overlap, or when).
    static func anchored(_ earlier: [Word], _ later: [Word], overlap: ClosedRange<Double>) -> (earlier: [Word], later: [Word])? {
        let tail = earlier.indices.filter { earlier[$0].middle >= overlap.lowerBound }
        let head = later.indices.filter { later[$0].middle <= overlap.upperBound }
        var anchor: (earlier: Int, later: Int, drift: Double)?
        for i in tail {
            for j in head where key(earlier[i]) == key(later[j]) && !key(earlier[i]).isEmpty {
                let drift = abs(earlier[i].start - later[j].start)
                // A short word ("the", "a") matches by chance, and so do two ("you are" now muted /
                // currently); a longer one, or three in a row, does not.
                let followed = (1...2).allSatisfy { k in
                    i + k < earlier.count && j + k < later.count && key(earlier[i + k]) == key(later[j + k])
                }
                guard drift <= anchorDrift, key(earlier[i]).count >= 4 || followed else { continue }
                if anchor.map({ drift < $0.drift }) ?? true { anchor = (i, j, drift) }
            }
        }
        guard let anchor else { return nil }
        return (Array(earlier[...anchor.earlier]), Array(later[(anchor.later + 1)...]))
    }

    /// `later` without the run of words that ends `earlier` and opens `later` at the same moment:
    /// an engine's times drift or collapse at a window's edge ("…hablaba Carlos, hablaba Carlos."
    /// with a 0 ms second copy). A speaker's real repeat comes later than that and stays.
    static func withoutDuplicates(_ later: [Word], after earlier: [Word]) -> [Word] {
        func sameMoment(_ a: Word, _ b: Word) -> Bool { abs(a.start - b.start) <= duplicateTolerance || b.end - b.start < 0.05 }
        for length in stride(from: min(earlier.count, later.count, 8), through: 1, by: -1) {
            let tail = earlier.suffix(length), head = later.prefix(length)
            if zip(tail, head).allSatisfy({ key($0) == key($1) && !key($0).isEmpty && sameMoment($0, $1) }) {
                return Array(later.dropFirst(length))
            }
        }
        return later
    }

    /// `earlier` with the words it timed past `limit` (where the next window opens) squeezed,
    /// in order, to end there: a window's times drift late near where it stopped, and the next
    /// window's words begin at `limit` ("the other way." timed 141.27-141.95 s against the next
    /// window's "In" at 141.25 s came out as "In way.").
    static func fitted(_ earlier: [Word], endingBy limit: Double) -> [Word] {
        guard let first = earlier.firstIndex(where: { $0.end > limit }) else { return earlier }
        let tail = earlier[first...]
        let tailStart = tail.map(\.start).min()!, tailEnd = tail.map(\.end).max()!
        let floor = first > earlier.startIndex ? earlier[first - 1].end : -Double.infinity
        // At least 0.2 s a word where the words themselves start after the limit.
        let from = min(limit, max(floor, min(tailStart, limit - 0.2 * Double(tail.count))))
        let scale = tailEnd > tailStart ? (limit - from) / (tailEnd - tailStart) : 0
        return Array(earlier[..<first]) + tail.map { word in
            var word = word
            word.start = from + (word.start - tailStart) * scale
            word.end = from + (word.end - tailStart) * scale
            return word
        }
    }

    /// `earlier` split into what it heard and what it guessed: the words it timed, with no
    /// duration, at the end of the audio it heard (`heardEnd`), where Whisper clamps the words it
    /// guessed past that end ("出去散散步" then "你不想要我去找你吗?", nine characters at 101.56 s,
    /// the window's end, with the next window opening at 101.67 s on "这部电影"). When the next
    /// window opens there (`heardOn`) it hears them itself. Otherwise one word alone on the edge
    /// is the word the edge cut, its start heard ("くださ" + "い", "forced" + "aligner"), and stays;
    /// a run of words said in no time is guessed.
    static func guessedEnd(_ earlier: [Word], heardEnd: Double, heardOn: Bool) -> (heard: [Word], guessed: [Word]) {
        let isGuess = { (word: Word) in word.end - word.start < 0.05 && word.start >= heardEnd - 0.05 }
        let guessed = earlier.filter(isGuess)
        guard heardOn || guessed.count > 1 else { return (earlier, []) }
        return (earlier.filter { !isGuess($0) }, guessed)
    }

    private static func key(_ word: Word) -> String { word.text.spellingKey }
}
