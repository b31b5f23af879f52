/// How the 30 s windows of a transcription asked to use beam search were decoded.
public struct BeamTally: Codable, Sendable, Equatable {
    /// Windows decoded as the beam search chose.
    public var beamWindows: Int
    /// Windows whose best beam was too unsure (mean token log-probability under Whisper's
    /// threshold), left to greedy decoding with temperature fallback, as openai-whisper falls
    /// back from its beam.
    public var unsureWindows: Int
    /// Windows where the search could not run or the library refused a planned token, decoded
    /// greedily instead.
    public var failedWindows: Int

    public init(beamWindows: Int = 0, unsureWindows: Int = 0, failedWindows: Int = 0) {
        self.beamWindows = beamWindows
        self.unsureWindows = unsureWindows
        self.failedWindows = failedWindows
    }

    /// The tallies added up; nil when none was kept (no beam search was asked for).
    public static func sum(_ tallies: [BeamTally?]) -> BeamTally? {
        let kept = tallies.compactMap { $0 }
        guard !kept.isEmpty else { return nil }
        return kept.reduce(BeamTally()) {
            BeamTally(beamWindows: $0.beamWindows + $1.beamWindows, unsureWindows: $0.unsureWindows + $1.unsureWindows,
                      failedWindows: $0.failedWindows + $1.failedWindows)
        }
    }
}
