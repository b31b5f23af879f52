/// What became of a transcript the user gave (`caption --transcript`): how many of its words
/// were matched to what the recogniser heard, how many were timed between matches, and the
/// passages the audio did not support, or that were said and are not in it.
public struct TranscriptAlignment: Codable, Sendable, Equatable {
    /// A stretch of text and where it is: on a line of the transcript, on the media's timeline.
    public struct Passage: Codable, Sendable, Equatable {
        public var text: String
        public var words: Int
        /// The transcript's line it starts on (1-based); nil for what was heard.
        public var line: Int?
        /// Seconds: where it was heard, or the stretch between the words around it.
        public var start: Double
        public var end: Double

        public init(text: String, words: Int, line: Int?, start: Double, end: Double) {
            self.text = text
            self.words = words
            self.line = line
            self.start = start
            self.end = end
        }
    }

    /// The transcript's file name.
    public var source: String
    public var words: Int
    /// Words matched to a recognised word (spelt alike, or nearly, between exact matches).
    public var matched: Int
    /// Words timed by their share of the speech between matched words (a name the recogniser
    /// spelt otherwise, a stretch it missed).
    public var timedBetween: Int
    /// Passages of the transcript the audio does not support: too little speech where they
    /// belong. They are left out of the captions.
    public var notHeard: [Passage]
    /// Short passages the recogniser did not hear where there is less speech than saying them
    /// takes (a recogniser drops a few words more often than a transcript holds a few never
    /// said): kept in the captions, their times estimates.
    public var estimated: [Passage]
    /// Passages heard where the transcript has nothing (an ad-lib). Not captioned: the captions
    /// hold the transcript's words only.
    public var notInTranscript: [Passage]

    public init(source: String, words: Int, matched: Int, timedBetween: Int, notHeard: [Passage], estimated: [Passage], notInTranscript: [Passage]) {
        self.source = source
        self.words = words
        self.matched = matched
        self.timedBetween = timedBetween
        self.notHeard = notHeard
        self.estimated = estimated
        self.notInTranscript = notInTranscript
    }

    public var notHeardWords: Int { notHeard.reduce(0) { $0 + $1.words } }
}
