import CapforgeCore
import Foundation
import Synchronization

/// Basic-tier US English recognition with CMU PocketSphinx (Debian's 5prealpha).
///
/// The audio is cut into utterances with `EnergyVAD` and each is decoded on its own with
/// batch cepstral mean normalisation, so a piece of audio gives the same words whatever was
/// decoded before it: no adaptation state carries over between utterances or calls.
/// Cancellation is honoured between utterances; one utterance (at most
/// `utteranceVAD.configuration.maximumRegion`) is decoded without interruption.
public final class PocketSphinxEngine: SpeechEngine, Sendable {
    public static let name = PocketSphinxDecoder.engineName
    /// Shorter than EnergyVAD's default maximum to bound how late a cancellation is seen.
    public static let utteranceVAD: EnergyVAD = {
        var configuration = EnergyVAD.Configuration()
        configuration.maximumRegion = 20
        return EnergyVAD(configuration: configuration)
    }()

    public let model: PocketSphinxModel
    public let identity: EngineIdentity
    public let supportedLanguages: Set<Language>
    private let vad: EnergyVAD
    /// The C decoder, loaded on first use (about 0.5 s); not thread-safe, so every use holds the lock.
    private let decoder = Mutex<PocketSphinxDecoder?>(nil)

    public init(model: PocketSphinxModel = .debianEnglish, vad: EnergyVAD = PocketSphinxEngine.utteranceVAD) {
        self.model = model
        self.vad = vad
        identity = EngineIdentity(engine: Self.name, tier: .basic, model: model.name)
        supportedLanguages = model.isInstalled ? [.english] : []
    }

    public func transcribe(_ audio: MonoAudio, language: Language, cancellation: Cancellation) throws -> [Word] {
        guard language == .english else {
            throw SpeechError.unsupportedLanguage(
                language: language, engine: Self.name, available: Array(supportedLanguages))
        }
        let stop = CancellationCheck(cancellation)
        try stop.check()
        let regions = vad.speechRegions(in: audio)
        return try decoder.withLock { decoder in
            let loaded = try decoder ?? loadedDecoder()
            decoder = loaded
            var words: [Word] = []
            for region in regions {
                try stop.check()
                let utterance = audio.slice(from: region.start, to: region.end)
                let decoded = try loaded.decodeUtterance(Self.pcm16(utterance.samples))
                words += decoded.compactMap { Self.word(from: $0, utteranceStart: utterance.startTime) }
            }
            return words
        }
    }

    private func loadedDecoder() throws -> PocketSphinxDecoder {
        let missing = model.missingPaths
        guard missing.isEmpty else {
            throw SpeechError.modelMissing(
                path: missing.joined(separator: ", "),
                hint: "install the Debian package pocketsphinx-en-us (apt-get install pocketsphinx-en-us)")
        }
        return try PocketSphinxDecoder(model: model)
    }

    private static func pcm16(_ samples: [Float]) -> [Int16] {
        samples.map { x in
            guard x.isFinite else { return 0 }
            return Int16(max(-32768, min(32767, (x * 32768).rounded())))
        }
    }

    /// A word on the file's timeline, or nil for fillers (`<s>`, `</s>`, `<sil>`, `[NOISE]`, `++NOISE++`).
    static func word(from decoded: DecodedWord, utteranceStart: Double) -> Word? {
        let text = spelling(of: decoded.text)
        let isFiller = text.isEmpty || (text.hasPrefix("<") && text.hasSuffix(">"))
            || (text.hasPrefix("[") && text.hasSuffix("]")) || (text.hasPrefix("++") && text.hasSuffix("++"))
        guard !isFiller else { return nil }
        let frameSeconds = 0.01
        return Word(
            text: text,
            start: utteranceStart + Double(decoded.startFrame) * frameSeconds,
            end: utteranceStart + Double(decoded.endFrame + 1) * frameSeconds,
            confidence: max(0, min(1, decoded.probability)),
            tier: .basic, engine: name)
    }

    /// Drops the dictionary's pronunciation-variant suffix: `read(2)` → `read`.
    static func spelling(of entry: String) -> String {
        guard entry.hasSuffix(")"), let open = entry.lastIndex(of: "(") else { return entry }
        let variant = entry[entry.index(after: open)..<entry.index(before: entry.endIndex)]
        guard !variant.isEmpty, variant.allSatisfy(\.isNumber) else { return entry }
        return String(entry[..<open])
    }
}
