import CapforgeCore

/// A prompt (`--vocab`) makes Whisper prefer the spellings it holds ("ill-disposed" for
/// "old-sposed"), but a window decoded after plain text also skips phrases and drops its
/// timestamps: on held-out long-form speech tiny.en with a four-term prompt in every window made
/// 159 errors where it made 109 without (264 against 123 on the other half). So the unprompted
/// decoding decides what was said and when, and the prompted one may only respell it: where the
/// two differ over a short stretch and the prompted words hold a word of the prompt that the
/// unprompted ones lack, the prompted words take the stretch's place and time.
enum PromptedSpelling {
    /// Longest stretch (in words, either side) a prompt may respell: a name heard as two or
    /// three words, not a phrase.
    static let longestStretch = 4
    /// A respelling keeps about the sound: the shorter stretch has at least this share of the
    /// longer one's letters.
    static let similarLength = 0.6
    /// The prompted decoding's times can be off by a whole window (it may give one segment for
    /// 30 s), so the two hearings pair words this far apart.
    static let timeTolerance = 30.0

    static func respelled(_ plain: [Word], by prompted: [Word], prompt: String, language: Language) -> [Word] {
        let key = { CrossCheck.comparisonKey($0, language: language) }
        let promptKeys = Set(prompt.split(whereSeparator: \.isWhitespace).map { key(String($0)) }.filter { !$0.isEmpty })
        let anchors = WordAlignment.sharedPairs(plain, prompted, key: key, timeTolerance: timeTolerance)
        var result: [Word] = []
        var (nextPlain, nextPrompted) = (0, 0)
        for (plainEnd, promptedEnd) in anchors.map({ ($0.word, $0.heard) }) + [(plain.count, prompted.count)] {
            let unprompted = Array(plain[nextPlain..<plainEnd]), respelling = Array(prompted[nextPrompted..<promptedEnd])
            let plainKeys = Set(unprompted.map { key($0.text) })
            let respells = !unprompted.isEmpty && !respelling.isEmpty
                && unprompted.count <= longestStretch && respelling.count <= longestStretch
                && soundsAlike(unprompted, respelling, key: key)
                && respelling.contains { promptKeys.contains(key($0.text)) && !plainKeys.contains(key($0.text)) }
            result += respells ? timed(respelling, like: unprompted) : unprompted
            if plainEnd < plain.count { result.append(plain[plainEnd]) }
            (nextPlain, nextPrompted) = (plainEnd + 1, promptedEnd + 1)
        }
        return result
    }

    /// Whether one stretch could be the other spelt differently: about as many letters ("dash
    /// wood", "Dashwood"), not a phrase the prompted decoding skipped ("leisure to consider",
    /// "Dashwood").
    private static func soundsAlike(_ one: [Word], _ other: [Word], key: (String) -> String) -> Bool {
        let letters = [one, other].map { $0.reduce(0) { $0 + key($1.text).count } }
        return Double(letters.min()!) >= similarLength * Double(letters.max()!)
    }

    /// `words` over the span `like` took: word for word when they are as many, else shared out
    /// by length.
    private static func timed(_ words: [Word], like original: [Word]) -> [Word] {
        if words.count == original.count {
            return zip(words, original).map { word, slot in
                var word = word
                (word.start, word.end) = (slot.start, slot.end)
                return word
            }
        }
        let start = original.first!.start, span = original.map(\.end).max()! - start
        let lengths = words.map { Double(max(1, $0.text.count)) }
        let total = lengths.reduce(0, +)
        var cursor = start
        return zip(words, lengths).map { word, length in
            var word = word
            word.start = cursor
            cursor += span * length / total
            word.end = cursor
            return word
        }
    }
}
