import CapforgeCore

/// Silero can be seconds late where a speaker starts after silence: on held-out speech a new
/// speaker's "uh so this is the sick corpus", after 4 s of digital silence, scored below 0.35 for
/// its first 2.3 s (and below 0.15 for its first 1.3 s), so "so this is" was never heard, by any
/// model. The sound is there, though: a region's start moves back over the sound joined to it, to
/// where that sound began after a pause. Only a short burst moves it: sound that runs on further
/// back (a music bed, steady noise) is not speech the detector missed, and neither is a steady
/// tone: the detector's padding reached 50 ms into a 2 s ring that ended 0.55 s before the
/// speaker started (Benchmarks/nonspeech's tone-ring), and Whisper timed the first four words
/// over the ring.
enum SoundOnset {
    /// The longest stretch of sound before a region that can be its missed start.
    static let longestMissedStart = 3.0
    /// Quiet this long before the sound is the pause the speaker started after.
    static let pause = 0.3
    /// Quiet is this far below the region's loud frames (or below digital silence's level).
    static let quietBelowSpeechDB = 35.0
    /// Context kept before the sound's first frame, as the detector's padding keeps.
    static let context = 0.2

    /// `regions` (in order, on `audio`'s timeline) with each start moved back to the onset of
    /// the sound that runs into it, less `context`, never before the region before it ends.
    static func extended(_ regions: [SpeechRegion], in audio: MonoAudio, context: Double = SoundOnset.context) -> [SpeechRegion] {
        var result: [SpeechRegion] = []
        for region in regions {
            var region = region
            let floor = result.last?.end ?? audio.startTime
            if let onset = onset(before: region, in: audio) {
                region = SpeechRegion(start: max(floor, onset - context), end: region.end, pauses: region.pauses)
            }
            result.append(region)
        }
        return result
    }

    /// Where the sound joined to `region`'s start began, when it began after a pause within
    /// `longestMissedStart` of the region (the pause may lie partly in the padding of the region
    /// before); nil otherwise.
    private static func onset(before region: SpeechRegion, in audio: MonoAudio) -> Double? {
        let frame = Double(LoudnessEnvelope.frameLength) / Double(MonoAudio.sampleRate)
        let speech = LoudnessEnvelope(audio.slice(from: region.start, to: min(region.end, region.start + longestMissedStart)).samples[...])
        guard let loud = speech.percentile(0.95) else { return nil }
        let quiet = max(LoudnessEnvelope.silenceDBFS, loud - quietBelowSpeechDB)
        let from = region.start - longestMissedStart - pause
        let before = audio.slice(from: from, to: region.start)
        let levels = LoudnessEnvelope(before.samples[...]).levels
        let pauseFrames = Int((pause / frame).rounded())
        var quietRun = 0
        for index in levels.indices.reversed() {
            guard levels[index] < quiet else {
                quietRun = 0
                continue
            }
            quietRun += 1
            if quietRun == pauseFrames {
                let onset = before.startTime + Double(index + pauseFrames) * frame
                guard region.start - onset > frame, region.start - onset <= longestMissedStart else { return nil }
                // Syllables rise and fall; a tone holds its level (the pauses in between aside).
                let sounding = LoudnessEnvelope(levels: levels[(index + pauseFrames)...].filter { $0 >= quiet })
                return sounding.isSteady(minimumRangeDB: NoSpeechFilter.minimumDynamicRangeDB) ? nil : onset
            }
        }
        return nil
    }
}
