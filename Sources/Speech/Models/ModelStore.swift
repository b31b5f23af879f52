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
    /// How the weights are stored: "f16", "q8_0", …; nil for a broken file.
    public var weightType: String?
    /// ISO 639-1 codes the model recognises.
    public var languages: [Language]
    /// Hex SHA-256 of the file; nil when listed without digests (hashing reads the whole file,
    /// and its weights are checked on the same read).
    public var sha256: String?
    /// Why the file cannot be used (truncated, corrupt, a header that lies); nil when it can.
    public var problem: String?
}

/// Where models are found: `$CAPFORGE_MODELS` alone when it is set; otherwise the user's folder
/// (`$XDG_DATA_HOME/capforge/models`, else `~/.local/share/capforge/models`), then the models an
/// install put in `PREFIX/share/capforge/models` beside the binary. Imports go to `directory`;
/// a model in the user's folder stands in for an installed one of the same name.
public struct ModelStore: Sendable {
    public let directory: URL
    /// Read-only folders looked in after `directory`.
    public let sharedDirectories: [URL]

    public init(directory: URL, sharedDirectories: [URL] = []) {
        self.directory = directory
        self.sharedDirectories = sharedDirectories
    }

    public init(environment: [String: String] = ProcessInfo.processInfo.environment, executable: URL? = Bundle.main.executableURL) {
        if let explicit = environment["CAPFORGE_MODELS"], !explicit.isEmpty {
            self.init(directory: URL(fileURLWithPath: explicit))
        } else {
            self.init(directory: InstallLayout.userData(environment: environment).appendingPathComponent("models"),
                      sharedDirectories: InstallLayout.shared(executable: executable).map { [$0.appendingPathComponent("models")] } ?? [])
        }
    }

    /// The folders looked in, in order.
    public var searchPath: [URL] { [directory] + sharedDirectories }

    /// The first file called `name` along the search path.
    public func file(named name: String) -> URL? {
        searchPath.map { $0.appendingPathComponent(name) }.first { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// "tiny.en" for "ggml-tiny.en.bin"; other file names are their own model name.
    public static func modelName(ofFile file: String) -> String {
        file.hasPrefix("ggml-") && file.hasSuffix(".bin") ? String(file.dropFirst("ggml-".count).dropLast(".bin".count)) : file
    }

    /// Why a file's name cannot name a model, or nil. The name is written into the header of
    /// every caption file the model makes and shown in lists, a line each: a line break in it
    /// would start a cue or an event there, an escape sequence would act on a terminal.
    static func nameProblem(ofFile file: String) -> String? {
        guard ControlCharacters.contains(file) else { return nil }
        return "its file name holds control characters (a line break, an escape, a direction override), which the model's name "
            + "would carry into the headers of the captions it writes: rename it, as ggml-NAME.bin with a plain NAME"
    }

    /// Where an import of the model called `name` goes.
    public func url(forModelNamed name: String) -> URL {
        directory.appendingPathComponent("ggml-\(name).bin")
    }

    /// Every ggml Whisper model along the search path, by name (the first of a name only), the
    /// broken ones with their problem; other files are ignored.
    public func list(digests: Bool = true) throws -> [InstalledModel] {
        var seen = Set<String>()
        return try searchPath.flatMap { folder -> [InstalledModel] in
            try Self.names(in: folder).sorted().compactMap { file -> InstalledModel? in
                guard file.hasPrefix("ggml-"), file.hasSuffix(".bin"), seen.insert(file).inserted else { return nil }
                return try describe(folder.appendingPathComponent(file), digest: digests)
            }
        }
    }

    /// The facts of one ggml Whisper model anywhere (`--model PATH`); a broken one is an error.
    public func describe(modelAt url: URL, digest: Bool = true) throws -> InstalledModel {
        if let problem = Self.nameProblem(ofFile: url.lastPathComponent) { throw SpeechError.modelInvalid(path: url.path, reason: problem) }
        guard let layout = try WhisperModelFile.layout(at: url, keepingVocabulary: false) else {
            throw SpeechError.modelInvalid(path: url.path, reason: "it is not a ggml Whisper model")
        }
        return try Self.model(at: url, layout: layout, digest: digest)
    }

    /// Converts the CTranslate2 Whisper model in `source` into `ggml-<name>.bin` here. A file
    /// of that name is replaced only when Capforge wrote it (the store's ledger says so) or
    /// `overwrite` is set; that is checked before the conversion starts. `name` defaults to the
    /// source folder's name, followed by the weight type when it is not f16 ("tiny.en-q8_0",
    /// whisper.cpp's naming).
    @discardableResult
    public func importCT2(from source: URL, name: String? = nil, weights: WeightEncoding = .f16, overwrite: Bool = false,
                          digest: Bool = true) throws -> InstalledModel {
        let folder = source.standardizedFileURL.lastPathComponent
        let given = name
        let name = name ?? (weights == .f16 ? folder : "\(folder)-\(weights.rawValue)")
        // The name goes into every caption file's header (`nameProblem`).
        guard !name.isEmpty, !name.contains("/"), !ControlCharacters.contains(name) else {
            throw ModelImportError.unsupported(path: source.path, reason: "'\(name)' is not a usable model name (no '/', no control characters)"
                + (given == nil ? ": it is the folder's; give one with --name NAME" : ""))
        }
        var info = stat()
        if stat(directory.path, &info) == 0 ? info.st_mode & S_IFMT != S_IFDIR : errno == ENOTDIR {
            throw ModelStoreError.notAFolder(path: directory.path)
        }
        let target = url(forModelNamed: name)
        let writer = try AtomicFileWriter(target, policy: writePolicy(overwrite: overwrite))
        try writer.append(try CT2WhisperConverter.convert(directory: source, weights: weights))
        // Checked before it is renamed into place: a model that would be listed as broken never
        // replaces a working one.
        if let written = writer.temporaryURL {
            guard let layout = try WhisperModelFile.layout(at: written, keepingVocabulary: false) else {
                throw SpeechError.modelInvalid(path: written.path, reason: "it is not a ggml Whisper model")
            }
            try WhisperModelFile.checkWeights(at: written, layout: layout)
        }
        try writer.commit()
        return try describe(modelAt: target, digest: digest)
    }

    /// How model files are written into `directory`: the store's own ledger (`.capforge` in it,
    /// as in a caption output tree) tells the files Capforge wrote from the user's.
    func writePolicy(overwrite: Bool) -> OutputPolicy {
        Self.writePolicy(in: directory, overwrite: overwrite)
    }

    static func writePolicy(in folder: URL, overwrite: Bool = false) -> OutputPolicy {
        OutputPolicy(ledgers: [OutputLedger(stateFolder: StateFolder(tree: folder.appendingPathComponent(".capforge")))], overwrite: overwrite)
    }

    /// The entries of a models folder; none when it does not exist.
    private static func names(in folder: URL) throws -> [String] {
        guard let stream = opendir(folder.path) else {
            switch errno {
            case ENOENT: return []
            case ENOTDIR: throw ModelStoreError.notAFolder(path: folder.path)
            default: throw ModelStoreError.unreadable(path: folder.path, reason: String(cString: strerror(errno)))
            }
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// A model file of the directory: described, listed as broken, or nil when it is no Whisper model.
    private func describe(_ url: URL, digest: Bool) throws -> InstalledModel? {
        let problem: String
        do {
            guard let layout = try WhisperModelFile.layout(at: url, keepingVocabulary: false) else { return nil }
            if let named = Self.nameProblem(ofFile: url.lastPathComponent) { throw SpeechError.modelInvalid(path: url.path, reason: named) }
            return try Self.model(at: url, layout: layout, digest: digest)
        } catch SpeechError.modelInvalid(_, let reason) {
            problem = reason
        } catch SpeechError.modelMissing {
            // Listed, yet not there: one odd entry must not stop the listing (or a caption run).
            problem = "it cannot be opened: a link to nothing, or a file name that is not UTF-8 (rename it)"
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
        return InstalledModel(engine: WhisperEngine.engineName, name: Self.modelName(ofFile: url.lastPathComponent), url: url, sizeBytes: size,
                              isEnglishOnly: false, weightType: nil, languages: [], sha256: nil, problem: problem)
    }

    private static func model(at url: URL, layout: WhisperModelFile.Layout, digest: Bool) throws -> InstalledModel {
        let hparams = layout.hyperparameters
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
        return InstalledModel(
            engine: WhisperEngine.engineName, name: modelName(ofFile: url.lastPathComponent), url: url, sizeBytes: size,
            isEnglishOnly: !hparams.isMultilingual, weightType: WeightEncoding.name(ofFileType: hparams.fileType),
            languages: hparams.isMultilingual ? WhisperLanguages.supported(byVocabularySize: hparams.vocabularySize) : [.english],
            sha256: digest ? try Self.digest(of: url, size: size, layout: layout) : nil)
    }

    /// A model's SHA-256, remembered in `<model>.sha256` beside it (keyed by size and
    /// modification time) so every run can name its exact model without rereading it. Its
    /// weights are checked when it is hashed (`checkWeights`): a sidecar says both were done.
    static func digest(of url: URL, size: Int64, layout: WhisperModelFile.Layout) throws -> String {
        let modified = (try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let stamp = "\(size) \(modified) weights-checked"
        let sidecar = url.appendingPathExtension("sha256")
        if let cached = try? String(contentsOf: sidecar, encoding: .utf8) {
            let fields = cached.split(separator: " ", maxSplits: 1).map(String.init)
            if fields.count == 2, fields[1] == stamp { return fields[0] }
        }
        try WhisperModelFile.checkWeights(at: url, layout: layout)
        let digest = try SHA256.hex(ofFile: url)
        // A read-only models directory still works, and so does a sidecar of the user's (kept):
        // the model is just hashed every time.
        try? AtomicFile.write("\(digest) \(stamp)", to: sidecar, policy: writePolicy(in: url.deletingLastPathComponent()))
        return digest
    }
}

/// Why a models folder cannot be used.
public enum ModelStoreError: Error, CustomStringConvertible, Equatable {
    case notAFolder(path: String)
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .notAFolder(let path):
            return "the models folder \(path) is not a folder (it, or one above it, is a file); set CAPFORGE_MODELS to a folder"
        case .unreadable(let path, let reason):
            return "cannot list the models folder \(path): \(reason)"
        }
    }
}
