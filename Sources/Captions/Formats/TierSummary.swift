import CapforgeCore
import Foundation

/// Where the words came from, stated the same way in every format that can carry a comment.
/// Its lines hold names from outside (a model's file or folder name): each is one line, its
/// control characters escaped, so no name can end a header line and start a cue or an event.
struct TierSummary {
    static let tierLabel = "Recognition tier: "
    static let translatedLabel = "Translated from "

    let transcript: Transcript

    var lines: [String] {
        var lines = [Self.tierLabel + transcript.tier.rawValue]
        if let source = transcript.translatedFrom {
            lines.append(Self.translatedLabel + "\(source.name) (\(source.code)) by Whisper's translate task: the words are English, not what was said")
        }
        for engine in transcript.engines {
            var line = "Engine: \(engine.engine) (\(engine.tier.rawValue) tier), model \(engine.model)"
            if let sha = engine.modelSHA256 { line += ", sha256 \(sha)" }
            lines.append(line)
        }
        lines.append(String(format: "Basic recognition share: %.1f%% of speech", transcript.basicShare * 100))
        return lines.map { ControlCharacters.escaped($0) }
    }

    var hasBasicSpeech: Bool { transcript.words.contains { $0.tier == .basic } }
}
