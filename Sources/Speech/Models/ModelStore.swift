import CapforgeCore
import Foundation

/// A Whisper model installed in the models directory.
public struct InstalledModel: Sendable, Equatable {
    public var engine: String
    /// The name `--model` accepts, e.g. "tiny.en" for ggml-tiny.en.bin.
    public var name: String
    public var url: URL
    public var sizeBytes: Int64
    public var isEnglishOnly: Bool
    /// ISO 639-1 codes the model recognises.
    public var languages: [String]
    /// Hex SHA-256 of the file; nil when listed without digests (hashing reads the whole file).
    public var sha256: String?
}

/// The folder holding imported models: `$CAPFORGE_MODELS`, else `$XDG_DATA_HOME/capforge/models`,
/// else `~/.local/share/capforge/models`.
public struct ModelStore: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(directory: Self.defaultDirectory(environment: environment))
    }

    public static func defaultDirectory(environment: [String: String]) -> URL {
        if let explicit = environment["CAPFORGE_MODELS"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit)
        }
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".local/share")
        return dataHome.appendingPathComponent("capforge/models")
    }

    /// "tiny.en" for "ggml-tiny.en.bin"; other file names are their own model name.
    public static func modelName(ofFile file: String) -> String {
        file.hasPrefix("ggml-") && file.hasSuffix(".bin") ? String(file.dropFirst("ggml-".count).dropLast(".bin".count)) : file
    }

    /// Where the model called `name` lives (or would, once imported).
    public func url(forModelNamed name: String) -> URL {
        directory.appendingPathComponent("ggml-\(name).bin")
    }

    /// Every ggml Whisper model in the directory, by name; other files are ignored.
    public func list(digests: Bool = true) throws -> [InstalledModel] {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        return try names.sorted().compactMap { file -> InstalledModel? in
            guard file.hasPrefix("ggml-"), file.hasSuffix(".bin") else { return nil }
            return try describe(directory.appendingPathComponent(file), digest: digests)
        }
    }

    /// The facts of one ggml Whisper model anywhere (`--model PATH`).
    public func describe(modelAt url: URL, digest: Bool = true) throws -> InstalledModel {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw SpeechError.modelMissing(path: url.path, hint: "import one with `capforge models import DIR` or check --model")
        }
        guard let model = try describe(url, digest: digest) else {
            throw SpeechError.modelInvalid(path: url.path, reason: "it is not a ggml Whisper model")
        }
        return model
    }

    /// Converts the CTranslate2 Whisper model in `source` into `ggml-<name>.bin` here, replacing
    /// any model of that name. `name` defaults to the source folder's name.
    @discardableResult
    public func importCT2(from source: URL, name: String? = nil, digest: Bool = true) throws -> InstalledModel {
        let name = name ?? source.standardizedFileURL.lastPathComponent
        guard !name.isEmpty, !name.contains("/") else {
            throw ModelImportError.unsupported(path: source.path, reason: "'\(name)' is not a usable model name")
        }
        let target = url(forModelNamed: name)
        try AtomicFile.write(try CT2WhisperConverter.convert(directory: source), to: target)
        guard let model = try describe(target, digest: digest) else {
            throw ModelImportError.malformed(path: target.path, reason: "the converted file has no ggml header")
        }
        return model
    }

    private func describe(_ url: URL, digest: Bool) throws -> InstalledModel? {
        guard let hparams = try? WhisperModelFile.hyperparameters(at: url) else { return nil }
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
        return InstalledModel(
            engine: "whisper", name: Self.modelName(ofFile: url.lastPathComponent), url: url, sizeBytes: size,
            isEnglishOnly: !hparams.isMultilingual,
            languages: hparams.isMultilingual ? WhisperLanguages.supported(byVocabularySize: hparams.vocabularySize) : ["en"],
            sha256: digest ? try Self.digest(of: url, size: size) : nil)
    }

    /// A model's SHA-256, remembered in `<model>.sha256` beside it (keyed by size and
    /// modification time) so every run can name its exact model without rereading it.
    static func digest(of url: URL, size: Int64) throws -> String {
        let modified = (try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let stamp = "\(size) \(modified)"
        let sidecar = url.appendingPathExtension("sha256")
        if let cached = try? String(contentsOf: sidecar, encoding: .utf8) {
            let fields = cached.split(separator: " ", maxSplits: 1).map(String.init)
            if fields.count == 2, fields[1] == stamp { return fields[0] }
        }
        let digest = try SHA256.hex(ofFile: url)
        // A read-only models directory still works; it just hashes every time.
        try? AtomicFile.write("\(digest) \(stamp)", to: sidecar)
        return digest
    }
}
