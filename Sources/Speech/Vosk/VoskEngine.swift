import CapforgeCore
import Foundation
import Synchronization

/// Basic-tier recognition with Vosk (Kaldi), for every language with a Vosk model installed.
///
/// Models are loaded on first use of their language and kept; each call gets a fresh
/// recognizer, so calls are independent and may run concurrently.
public final class VoskEngine: SpeechEngine, Sendable {
    public static let name = VoskRecognizer.engineName
    /// Audio fed per recognizer call; cancellation is checked between blocks.
    static let blockSeconds = 0.25

    /// The model used for each language: the first in name order when several are installed.
    public let models: [Language: VoskModelInfo]
    public let identity: EngineIdentity
    public var supportedLanguages: Set<Language> { Set(models.keys) }

    private let loaded = Mutex<[Language: VoskModel]>([:])

    public convenience init(modelsDirectory: URL) {
        self.init(models: VoskModelCatalog.discover(in: modelsDirectory))
    }

    public init(models: [VoskModelInfo]) {
        var byLanguage: [Language: VoskModelInfo] = [:]
        for model in models.sorted(by: { $0.name < $1.name }) where byLanguage[model.language] == nil {
            byLanguage[model.language] = model
        }
        self.models = byLanguage
        identity = EngineIdentity(
            engine: Self.name, tier: .basic, model: byLanguage.values.map(\.name).sorted().joined(separator: ","))
    }

    /// Loads the language's model now rather than in the first `transcribe`.
    public func preload(language: Language) throws {
        _ = try model(for: language)
    }

    public func transcribe(_ audio: MonoAudio, language: Language, cancellation: Cancellation) throws -> [Word] {
        let stop = CancellationCheck(cancellation)
        try stop.check()
        let recognizer = try VoskRecognizer(model: try model(for: language), sampleRate: MonoAudio.sampleRate)
        let blockSamples = Int(Self.blockSeconds * Double(MonoAudio.sampleRate))
        var results: [String] = []
        for blockStart in stride(from: 0, to: audio.samples.count, by: blockSamples) {
            try stop.check()
            // Vosk's float input is on the int16 scale.
            let block = audio.samples[blockStart..<min(blockStart + blockSamples, audio.samples.count)]
                .map { $0.isFinite ? $0 * 32768 : 0 }
            if let utterance = try recognizer.accept(block[...]) {
                results.append(utterance)
            }
        }
        results.append(try recognizer.finish())
        return try results.flatMap { try Self.words(fromResultJSON: $0, streamStart: audio.startTime) }
    }

    /// Words of one result JSON on the file's timeline, without `[unk]`-style markers.
    static func words(fromResultJSON json: String, streamStart: Double) throws -> [Word] {
        (try VoskResult.parse(json).result ?? []).compactMap { item in
            let text = item.word
            let isMarker = text.isEmpty || (text.hasPrefix("[") && text.hasSuffix("]"))
                || (text.hasPrefix("<") && text.hasSuffix(">"))
            guard !isMarker else { return nil }
            return Word(
                text: text, start: streamStart + item.start, end: streamStart + item.end,
                confidence: max(0, min(1, item.conf)), tier: .basic, engine: name)
        }
    }

    private func model(for language: Language) throws -> VoskModel {
        guard let info = models[language] else {
            throw SpeechError.unsupportedLanguage(language: language, engine: Self.name, available: Array(models.keys))
        }
        return try loaded.withLock { loaded in
            if let model = loaded[language] { return model }
            let model = try VoskModel(directory: info.directory)
            loaded[language] = model
            return model
        }
    }
}
