/// Why a word a recogniser wrote was left out of the captions. Each is said in its own words:
/// a user checking what was dropped needs to know which check dropped it.
public enum DropReason: String, Codable, Sendable, CaseIterable {
    /// A phrase said over and over mostly where the speech detector found no speech: a decoder
    /// looping over music or tones.
    case loopOverNoSpeech
    /// Words where the speech detector found no speech, which the recogniser itself doubted.
    case outsideSpeech
    /// A stock phrase of Whisper's training captions ("Thank you.") alone, far from other words.
    case loneStockPhrase
    /// A segment over steady sound (silence, hiss, hum) that Whisper rated as no speech.
    case steadySound
    /// Words timed in no time at a window's end where a pause followed: guessed past the audio
    /// the window was given.
    case guessedPastWindow
    /// Too few words for the speech the detector found: the recogniser did not make out what was
    /// said, so what it wrote is not evidence of it.
    case underHeard
    /// A copy of the words just before it, written faster than anyone speaks: the decoder
    /// repeating itself (at a window's end above all), not the speaker.
    case decoderRepeat
    /// Words where the music check found music and no voice: that audio was silence to the
    /// recogniser, so they are mistimed or invented.
    case overMusic

    /// What the warning line and the report say of words dropped for this reason.
    public var explanation: String {
        switch self {
        case .loopOverNoSpeech: return "repeated over and over where the speech detector found no speech (a loop over music or tones)"
        case .outsideSpeech: return "heard where the speech detector found no speech, and doubted by the recogniser"
        case .loneStockPhrase: return "a stock phrase of subtitle training text standing alone, far from any speech"
        case .steadySound: return "over steady sound (silence, hiss, hum) Whisper itself rated as no speech"
        case .guessedPastWindow: return "guessed past the end of a window's audio where a pause followed"
        case .underHeard: return "written for far more speech than they can account for (the recogniser did not make out what was said)"
        case .decoderRepeat: return "repeating the words just before them faster than anyone speaks (the recogniser repeating itself)"
        case .overMusic: return "timed where the music check found music and no voice"
        }
    }
}

/// A word left out of the captions, and why. Encoded as the word's own fields plus `reason`.
public struct DroppedWord: Codable, Sendable, Equatable {
    public var word: Word
    public var reason: DropReason

    public init(_ word: Word, reason: DropReason) {
        self.word = word
        self.reason = reason
    }

    private enum CodingKeys: String, CodingKey { case reason }

    public init(from decoder: Decoder) throws {
        word = try Word(from: decoder)
        reason = try decoder.container(keyedBy: CodingKeys.self).decode(DropReason.self, forKey: .reason)
    }

    public func encode(to encoder: Encoder) throws {
        try word.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reason, forKey: .reason)
    }
}

extension Array where Element == Word {
    /// These words, each dropped for `reason`.
    public func dropped(_ reason: DropReason) -> [DroppedWord] { map { DroppedWord($0, reason: reason) } }
}
