/// A stretch of one kind of sound, in seconds on the file's timeline. Kinds overlap: speech
/// over a music bed is a speech event inside a music event.
public struct SoundEvent: Sendable, Codable, Equatable, Hashable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case speech, singing, music
    }

    public var kind: Kind
    public var start: Double
    public var end: Double

    public init(kind: Kind, start: Double, end: Double) {
        self.kind = kind
        self.start = start
        self.end = end
    }

    public var duration: Double { end - start }
}

/// What the sound-event detector found in a file: every event, and the music in which it found
/// no voice, which the recognisers do not hear (it is silence to them) and `--sdh` captions.
public struct SoundScene: Sendable, Codable, Equatable {
    /// The detector that found them ("fireredvad-aed").
    public var detector: String
    /// Every stretch of speech, singing and music, in order of their starts.
    public var events: [SoundEvent]
    /// Music with no voice in or near it, in order and apart (each of kind `.music`).
    public var musicAlone: [SoundEvent]
    /// The last moments before a voice begins, in the music or in a short pause after it, with
    /// no voice in them, in order: a word that starts there starts with the voice. Not written
    /// out (the events show it).
    public var musicBeforeVoice: [SoundEvent] = []

    private enum CodingKeys: String, CodingKey { case detector, events, musicAlone }

    public init(detector: String, events: [SoundEvent], musicAlone: [SoundEvent], musicBeforeVoice: [SoundEvent] = []) {
        self.detector = detector
        self.events = events
        self.musicAlone = musicAlone
        self.musicBeforeVoice = musicBeforeVoice
    }

    /// `audio` as the recognisers hear it: silent where music plays alone.
    public func heard(_ audio: any AudioSource) -> any AudioSource {
        musicAlone.isEmpty ? audio : QuietedAudio(audio, quieting: musicAlone.map { $0.start..<$0.end })
    }
}

/// Audio with spans made silent, ramped over 10 ms at each edge so no click marks where they
/// begin and end. The spans count as known silence, so detectors skip them as they skip gaps.
public struct QuietedAudio: AudioSource {
    public let base: any AudioSource
    /// In order and apart, on the file's timeline.
    public let spans: [Range<Double>]
    static let ramp = 0.01

    public init(_ base: any AudioSource, quieting spans: [Range<Double>]) {
        self.base = base
        self.spans = spans
    }

    public var startTime: Double { base.startTime }
    public var duration: Double { base.duration }

    public var silentSpans: [Range<Double>] {
        var merged: [Range<Double>] = []
        for span in (base.silentSpans + spans).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, span.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
            } else {
                merged.append(span)
            }
        }
        return merged
    }

    public func slice(from: Double, to: Double) throws -> MonoAudio {
        var audio = try base.slice(from: from, to: to)
        let rate = Double(MonoAudio.sampleRate)
        for span in spans where span.upperBound > audio.startTime && span.lowerBound < audio.endTime {
            // 0 inside the span, rising to 1 over the ramp outside each edge.
            func gain(_ time: Double) -> Float {
                Float(min(1, max(0, span.lowerBound - time, time - span.upperBound) / Self.ramp))
            }
            let first = max(0, Int(((span.lowerBound - Self.ramp - audio.startTime) * rate).rounded(.down)))
            let last = min(audio.samples.count, Int(((span.upperBound + Self.ramp - audio.startTime) * rate).rounded(.up)))
            guard first < last else { continue }
            for i in first..<last { audio.samples[i] *= gain(audio.startTime + Double(i) / rate) }
        }
        return audio
    }
}
