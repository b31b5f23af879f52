import CapforgeCore
import Foundation

@testable import Captions

enum Fixtures {
    /// The repository's Styles folder, found from this file so tests never depend on the
    /// working directory.
    static let stylesFolder = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Styles")

    static let modernEngine = EngineIdentity(engine: "whisper.cpp", tier: .modern, model: "ggml-base.en", modelSHA256: "60ed5bc3")
    static let basicEngine = EngineIdentity(engine: "pocketsphinx", tier: .basic, model: "en-us")

    static func word(_ text: String, _ start: Double, _ end: Double, confidence: Double = 0.9, tier: Tier = .modern) -> Word {
        Word(text: text, start: start, end: end, confidence: confidence, tier: tier,
             engine: tier == .modern ? modernEngine.engine : basicEngine.engine)
    }

    /// Two cues: a modern one with a low-confidence word, and a basic-tier one.
    static let mixedWords = [
        word("Hello", 0.5, 0.9), word("world.", 0.95, 1.4, confidence: 0.3),
        word("Basic", 2.0, 2.4, confidence: 0.8, tier: .basic), word("words", 2.45, 2.9, confidence: 0.7, tier: .basic),
    ]
    static let mixedCues = [
        Cue(start: 500, end: 1500, lines: ["Hello world."], words: Array(mixedWords[0..<2])),
        Cue(start: 2000, end: 3120, lines: ["Basic", "words"], words: Array(mixedWords[2..<4])),
    ]
    static let mixedTranscript = Transcript(language: .english, words: mixedWords, engines: [modernEngine, basicEngine], duration: 4)
    static let modernTranscript = Transcript(
        language: .english, words: Array(mixedWords[0..<2]), engines: [modernEngine], duration: 4)

    /// A compact style sheet so ASS goldens do not change when the shipped styles are tuned.
    static func goldenStyle() throws -> StyleSheet {
        try StyleSheet.parse("""
        ; test style
        Format: Name, Fontname, Fontsize, PrimaryColour, Alignment, MarginV
        Style: Default,DejaVu Sans,54,&H00FFFFFF,2,60
        Style: Basic,DejaVu Sans,54,&H00FFE6B4,2,60
        Style: Notice,DejaVu Sans,30,&H00FFFFFF,7,30
        LowConfidenceColour: &H0000D7FF
        """, name: "golden", path: "golden.style")
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("captions-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
