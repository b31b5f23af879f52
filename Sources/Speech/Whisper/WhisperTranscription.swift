import CapforgeCore

/// Everything one Whisper run produced, on the file's timeline.
public struct WhisperTranscription: Sendable, Equatable {
    public struct Segment: Sendable, Equatable {
        public var start: Double
        public var end: Double
        public var text: String
        public var noSpeechProbability: Double
    }

    public var words: [Word]
    public var segments: [Segment]
    /// The language decoded in.
    public var language: Language
    /// Wall-clock seconds spent in the library, re-decodes included.
    public var seconds: Double
    /// Segments that looped and were decoded again.
    public var redecodedSegments: Int
    /// Where Whisper looped and the copies the audio did not back were cut.
    public var loopCuts: [LoopCut]
    /// Words of segments Whisper itself rated as likely no speech over steady sound (silence,
    /// hiss, hum), left out.
    public var droppedWords: [Word]
    /// Where Whisper stopped listening: the audio's end, or, asked to leave to a next window
    /// what lies after `nextWindowFrom`, the end of the last segment it finished before that.
    public var heardUntil: Double
    /// How the windows were decoded when beam search was asked for; nil otherwise.
    public var beam: BeamTally?

    /// What a chunked transcriber needs of it.
    var window: HeardWindow {
        HeardWindow(words: words, heardUntil: heardUntil, loopCuts: loopCuts, droppedWords: droppedWords.dropped(.steadySound), beam: beam)
    }
}

/// A language guess from Whisper's language-token probabilities.
public struct LanguageGuess: Sendable, Equatable {
    public var language: Language
    public var probability: Double
}
