import CapforgeCore
import Foundation
import Media
import Speech

/// Before a machine has any history, the dry run times the work itself: the extraction of 30 s
/// of the first file, and Speech's recognition of them (`TranscriptionTiming`).
struct SpeedProbe {
    let speech: TranscriptionTiming
    /// Seconds of extraction (and the speech detector) per second of media.
    let extraction: Double

    /// Seconds to load the models, once a run.
    var load: Double { speech.load }

    private struct Enough: Error {}

    /// `detecting`: the file's language is left to the vote, which is timed too.
    static func measure(_ transcription: FileTranscriber, plan: TierPlan, file: URL, selection: AudioStreamSelection, detecting: Bool) throws -> SpeedProbe? {
        var samples: [Float] = []
        let wanted = Int(TranscriptionTiming.clipSeconds) * MonoAudio.sampleRate
        let clock = ContinuousClock()
        let began = clock.now
        do {
            _ = try AudioExtractor(path: file.path, selection: selection).extract { block in
                samples += block.prefix(wanted - samples.count)
                if samples.count >= wanted { throw Enough() }
            }
        } catch is Enough {}
        let extracted = (clock.now - began) / .seconds(1)
        let clip = MonoAudio(samples: samples)
        guard let speech = try transcription.timing(on: clip, plan: plan, detecting: detecting) else { return nil }
        return SpeedProbe(speech: speech, extraction: extracted / max(clip.duration, 1))
    }

    /// Seconds of work for a file of `duration` seconds (the model's load not included), heard
    /// as `options` cut it.
    func estimate(duration: Double, basic: Bool, options: TranscriptionOptions) -> Double {
        speech.estimate(duration: duration, basic: basic, options: options) + duration * extraction
    }
}
