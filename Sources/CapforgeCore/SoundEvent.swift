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
