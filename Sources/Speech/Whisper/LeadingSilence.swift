import CapforgeCore

/// Whisper pins a window's first words to its first timestamp, which lies in the detector's
/// padding before the speech: base timed "An" (of "Unidentified") at 20.07–20.32 s in the
/// silence after a DTMF tone, the speaker starting at 20.55 s (Benchmarks/nonspeech's tone-dtmf),
/// and tiny.en started "Unidentified" there too. A word does not start in silence: the words
/// that start before the window's first sound start with it.
enum LeadingSilence {
    /// Further than this before the first sound, a word was not timed into padding but written
    /// over nothing: it is left for the hallucination guard to judge.
    static let longestLead = 1.0

    static func words(_ words: [Word], in audio: MonoAudio) -> [Word] {
        guard let first = words.first, let sound = firstSound(in: audio), first.start < sound, sound - first.start <= longestLead else {
            return words
        }
        return moved(words[...], to: sound)
    }

    /// `words` (in order) with those that start before `onset` starting there instead; a word
    /// that ended before it keeps its length, up to the next word's start.
    static func moved(_ words: ArraySlice<Word>, to onset: Double) -> [Word] {
        var moved = Array(words)
        for i in moved.indices where moved[i].start < onset {
            let length = moved[i].duration, ended = moved[i].end <= onset
            moved[i].start = onset
            if ended {
                let next = i + 1 < moved.count ? max(onset, moved[i + 1].start) : .infinity
                moved[i].end = min(onset + length, next)
            }
        }
        return moved
    }

    /// Where the window's first sound begins: two frames in a row (a single one is a click) no
    /// quieter than speech's pauses are (`SoundOnset.quietBelowSpeechDB` under the loud frames).
    static func firstSound(in audio: MonoAudio) -> Double? {
        let envelope = LoudnessEnvelope(audio.samples[...])
        guard let loud = envelope.percentile(0.95), loud > LoudnessEnvelope.silenceDBFS else { return nil }
        let quiet = max(LoudnessEnvelope.silenceDBFS, loud - SoundOnset.quietBelowSpeechDB)
        let levels = envelope.levels
        guard let frame = levels.indices.dropLast().first(where: { levels[$0] >= quiet && levels[$0 + 1] >= quiet }) else { return nil }
        return audio.startTime + Double(frame * LoudnessEnvelope.frameLength) / Double(MonoAudio.sampleRate)
    }
}
