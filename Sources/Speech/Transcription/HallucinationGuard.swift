import CapforgeCore

/// Recognisers (Whisper above all) write fluent text over music, tones, noise and silence:
/// "Music playing.", "Thank you.", "This is the end of this video." The speech detector's
/// regions are the cross-check, with the word's own evidence as the second opinion:
/// - a phrase said over and over mostly outside every region is a decoder looping over sound
///   the detector heard no speech in, and is dropped whole, copies over a stray region included
///   (Whisper loops as surely over tones as over speech, and a second decoding loops again);
/// - a run of words outside every region is dropped when a second signal agrees (a word
///   stretched beyond anything speakable, an engine that barely believed it, or words drawn at
///   a temperature because the greedy decoding failed: over tones, a draw at 0.4 wrote "We're
///   going to go to the next one." at a mean log-probability of -0.84); it is kept and
///   marked low-confidence when in doubt: when nothing else speaks against it, or when it runs
///   straight into a few words of detected speech (real words whose times swallowed the music
///   before them);
/// - a stock phrase of Whisper's training captions ("you", "Thank you.") standing alone, far from
///   any other words, is dropped unless the engine was sure of it;
/// - a copy of the words just before it, written faster than anyone speaks, is the decoder
///   repeating itself (tiny.en ended a window by writing its last 17 words again in 0.74 s),
///   wherever it lies: dropped. A speaker's own repeat at speech rate stays.
/// Whatever is dropped or marked is reported; nothing is silently shown or silently lost.
public struct HallucinationGuard: Sendable {
    /// A word is over speech when this share of it (or `enoughSpeech` seconds, for a word
    /// whose start swallowed a pause) lies inside a detected region.
    public var minimumSpeechShare = 0.25
    public var enoughSpeech = 0.1
    /// Raw confidence below this is the engine's own doubt about a word...
    public var doubtfulWord = 0.1
    /// ...and a run's mean below this its doubt about the run.
    public var doubtfulRun = 0.6
    /// A stock phrase alone is kept only with at least this raw confidence.
    public var sureStockPhrase = 0.9
    /// A run is alone when no other word is this close (seconds).
    public var isolation = 3.0
    /// A copy of at least this many words of the words just before it...
    public var shortestRepeat = 4
    /// ...said faster than this (words a second: 8 words in 1.1 s; fast talkers reach about 5)
    /// was never said.
    public var fastestSpeech = 7.0
    /// The calibrated confidence a kept word over non-speech is capped at: below the
    /// low-confidence threshold, so writers colour it, and what such words measured: on the
    /// held-out calibration half 15 of 23 were right (tiny.en 8 of 11, base 7 of 12), so 0.6
    /// rather than a near-zero that stated them wrong (Benchmarks/confidence, issue 45).
    public static let flaggedConfidence = 0.6

    public init() {}

    public struct Verdict: Sendable, Equatable {
        public var kept: [Word]
        /// Words removed, each with the check that removed it.
        public var dropped: [DroppedWord]
        /// How many kept words lie over no speech (marked low-confidence).
        public var flagged: Int
    }

    /// `heard` in time order; `speech` the detector's regions, in order; `sounds` what the music
    /// check found. Its music alone the recogniser heard as silence: a word centred there is
    /// dropped, and one reaching into it is kept to the side its middle is on. A word that starts
    /// in music just before a voice begins starts with the voice.
    public func check(_ heard: [Word], speech: [SpeechRegion], sounds: SoundScene? = nil) -> Verdict {
        let musicAlone = sounds?.musicAlone ?? []
        let centred = { (word: Word) in musicAlone.contains { $0.start <= word.middle && word.middle < $0.end } }
        var verdict = checked(heard.filter { !centred($0) }.map { Self.outside(musicAlone, $0) }, speech: speech)
        verdict.kept = Self.onVoice(verdict.kept, musicBeforeVoice: sounds?.musicBeforeVoice ?? [])
        verdict.dropped = (verdict.dropped + heard.filter(centred).dropped(.overMusic)).sorted { $0.word.start < $1.word.start }
        return verdict
    }

    /// `words` (in order) with a word that starts in a stretch of `musicBeforeVoice` starting at
    /// its end, with the voice: Whisper pins a window's first word to its first sound, and the
    /// music left heard beside a voice is sound (tiny.en started "Press" 0.31 s early, on a hard
    /// cut from music to speech).
    static func onVoice(_ words: [Word], musicBeforeVoice: [SoundEvent]) -> [Word] {
        var words = words
        for stretch in musicBeforeVoice {
            guard let first = words.firstIndex(where: { $0.start >= stretch.start }), words[first].start < stretch.end else { continue }
            words.replaceSubrange(first..., with: LeadingSilence.moved(words[first...], to: stretch.end))
        }
        return words
    }

    private func checked(_ heard: [Word], speech: [SpeechRegion]) -> Verdict {
        let repeats = decoderRepeats(heard)
        let repeated = heard.indices.filter { repeats.contains($0) }.map { heard[$0] }.dropped(.decoderRepeat)
        let unrepeated = heard.indices.filter { !repeats.contains($0) }.map { heard[$0] }
        let loops = RepetitionGuard.runs(in: unrepeated.map(\.text.spellingKey)).map(\.words)
            .filter { run in 2 * run.filter { !isOverSpeech(unrepeated[$0], speech) }.count > run.count }
        let looped = Set(loops.joined())
        var verdict = Verdict(kept: [], dropped: repeated + looped.sorted().map { unrepeated[$0] }.dropped(.loopOverNoSpeech), flagged: 0)
        let words = unrepeated.enumerated().filter { !looped.contains($0.offset) }.map(\.element)
        var index = 0
        while index < words.count {
            guard !isOverSpeech(words[index], speech) else {
                verdict.kept.append(Self.isSpeakable(words[index]) ? words[index] : clipped(words[index], to: speech))
                index += 1
                continue
            }
            var end = index
            while end < words.count, !isOverSpeech(words[end], speech) { end += 1 }
            let run = words[index..<end]
            let leadsIntoSpeech = runsIntoSpeech(run.last!, words[end...], speech)
            let doubted = run.contains { !Self.isSpeakable($0) || $0.confidence < doubtfulWord || $0.evidence?.sampled == true }
                || meanConfidence(run) < doubtfulRun
            if doubted && !leadsIntoSpeech {
                verdict.dropped += Array(run).dropped(.outsideSpeech)
            } else {
                verdict.kept += run.map { word in
                    var flagged = word
                    flagged.calibratedConfidence = min(word.score, Self.flaggedConfidence)
                    return flagged
                }
                verdict.flagged += run.count
            }
            index = end
        }
        let (kept, stock) = withoutLoneStockPhrases(verdict.kept)
        verdict.kept = kept
        verdict.dropped = (verdict.dropped + stock.dropped(.loneStockPhrase)).sorted { $0.word.start < $1.word.start }
        return verdict
    }

    /// The indices of the words that copy, word for word, the run just before them in less time
    /// than it takes to say them; the longest copy first at each place.
    func decoderRepeats(_ words: [Word]) -> Set<Int> {
        let keys = words.map(\.text.spellingKey)
        var copies = Set<Int>()
        var start = shortestRepeat
        while start < words.count {
            let longest = min(start, words.count - start, RepetitionGuard.longestPhrase)
            let copy = longest < shortestRepeat ? nil : stride(from: longest, through: shortestRepeat, by: -1).first { length in
                let copy = start..<(start + length)
                return keys[copy].elementsEqual(keys[(start - length)..<start]) && !keys[copy].contains("")
                    && Double(length) > fastestSpeech * max(0, words[copy.upperBound - 1].end - words[start].start)
            }
            if let copy {
                copies.formUnion(start..<(start + copy))
                start += copy
            } else {
                start += 1
            }
        }
        return copies
    }

    /// `word` (whose middle lies outside every one of `music`) cut back to the side of each
    /// stretch its middle is on.
    static func outside(_ music: [SoundEvent], _ word: Word) -> Word {
        var word = word
        for stretch in music where stretch.start < word.end && word.start < stretch.end {
            if word.middle >= stretch.end { word.start = stretch.end } else { word.end = stretch.start }
        }
        return word
    }

    func isOverSpeech(_ word: Word, _ speech: [SpeechRegion]) -> Bool {
        guard word.duration > 0 else { return speech.contains { $0.start <= word.start && word.start <= $0.end } }
        let covered = speech.reduce(0.0) { $0 + max(0, min($1.end, word.end) - max($1.start, word.start)) }
        return covered >= min(enoughSpeech, minimumSpeechShare * word.duration)
    }

    /// Whether detected speech of a few words follows `last` without a pause: what comes before
    /// it is then more likely its mistimed start than an invention.
    private func runsIntoSpeech(_ last: Word, _ following: ArraySlice<Word>, _ speech: [SpeechRegion]) -> Bool {
        var previousEnd = last.end
        var count = 0
        for word in following {
            guard word.start - previousEnd < 1, isOverSpeech(word, speech) else { break }
            count += 1
            previousEnd = word.end
        }
        return count >= 3
    }

    /// A real word stretched over the non-speech before or after it (Whisper's start times
    /// swallow a music intro) is kept to the speech it covers.
    func clipped(_ word: Word, to speech: [SpeechRegion]) -> Word {
        let under = speech.filter { $0.end > word.start && $0.start < word.end }
        guard let first = under.first, let last = under.last else { return word }
        var word = word
        word.start = max(word.start, first.start)
        word.end = max(word.start, min(word.end, last.end))
        return word
    }

    /// Phrases Whisper learnt from the captions of silent or musical stretches of its training
    /// videos and writes where it hears no words.
    static let stockPhrases: Set<String> = [
        "you", "thank you", "thanks", "thank you very much", "thanks for watching", "thank you for watching",
        "bye", "bye bye", "music", "music playing", "applause", "laughter", "silence",
    ]

    private func withoutLoneStockPhrases(_ words: [Word]) -> (kept: [Word], dropped: [Word]) {
        // Groups of words less than a second apart.
        var groups: [[Word]] = []
        for word in words {
            if let last = groups.last?.last, word.start - last.end < 1 { groups[groups.count - 1].append(word) } else { groups.append([word]) }
        }
        var kept: [Word] = [], dropped: [Word] = []
        for (i, group) in groups.enumerated() {
            let alone = (i == 0 || group.first!.start - groups[i - 1].last!.end >= isolation)
                && (i == groups.count - 1 || groups[i + 1].first!.start - group.last!.end >= isolation)
            let phrase = group.map { $0.text.lowercased().filter { $0.isLetter || $0 == " " } }.joined(separator: " ")
            // Words drawn at a temperature were not the engine's sure choice, whatever they scored:
            // its greedy decoding had failed there (base wrote a lone "you" at 0.90 so over a
            // tone left heard between two stretches of music alone).
            if alone, Self.stockPhrases.contains(phrase), meanConfidence(group[...]) < sureStockPhrase || group.contains(where: { $0.evidence?.sampled == true }) {
                dropped += group
            } else {
                kept += group
            }
        }
        return (kept, dropped)
    }

    private func meanConfidence(_ run: ArraySlice<Word>) -> Double {
        run.isEmpty ? 1 : run.reduce(0) { $0 + $1.confidence } / Double(run.count)
    }

    /// A word no one takes longer than this to say: 1.5 s plus 0.15 s a letter (a drawn-out
    /// "so…" stays, a 17-second "Music" does not).
    static func longestSaying(_ word: Word) -> Double {
        1.5 + 0.15 * Double(word.text.filter { $0.isLetter || $0.isNumber }.count)
    }

    static func isSpeakable(_ word: Word) -> Bool {
        word.duration <= longestSaying(word)
    }

    /// Phrases of the video outros in Whisper's training captions, which it writes over speech it
    /// could not make out, above all when translating ("Please subscribe and like. Thank you.").
    static let outroPhrases: Set<String> = [
        "please subscribe", "subscribe", "please like and subscribe", "like and subscribe", "please subscribe and like",
        "subscribe to my channel", "please subscribe to my channel", "dont forget to subscribe", "see you next time",
        "see you in the next video", "thank you for listening",
    ]

    /// Whether every sentence of `words` is a stock or outro phrase: text that needs other
    /// evidence that it was said.
    static func isStockText(_ words: [Word]) -> Bool {
        let sentences = words.map(\.text).joined(separator: " ").split { ".!?。！？".contains($0) }
            .map { $0.lowercased().filter { $0.isLetter || $0 == " " }.split(separator: " ").joined(separator: " ") }
            .filter { !$0.isEmpty }
        return !sentences.isEmpty && sentences.allSatisfy { stockPhrases.contains($0) || outroPhrases.contains($0) }
    }
}
