import CapforgeCore

/// A word the modern tier heard with ordinary confidence, as tests that only need timed text build them.
public func word(_ text: String, _ start: Double, _ end: Double) -> Word {
    Word(text: text, start: start, end: end, confidence: 0.9, tier: .modern, engine: "whisper")
}
