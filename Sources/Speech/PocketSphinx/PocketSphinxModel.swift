import Foundation

/// The three files a PocketSphinx decoder needs, laid out as Debian's `pocketsphinx-en-us` installs them.
public struct PocketSphinxModel: Sendable, Equatable {
    /// Where `pocketsphinx-en-us` puts the US English model.
    public static let debianEnglish = PocketSphinxModel(
        directory: URL(fileURLWithPath: "/usr/share/pocketsphinx/model/en-us"), name: "en-us")

    public var name: String
    public var acousticModel: URL
    public var languageModel: URL
    public var dictionary: URL

    public init(name: String, acousticModel: URL, languageModel: URL, dictionary: URL) {
        self.name = name
        self.acousticModel = acousticModel
        self.languageModel = languageModel
        self.dictionary = dictionary
    }

    /// `directory/<name>/` (acoustic model), `<name>.lm.bin` and `cmudict-<name>.dict`.
    public init(directory: URL, name: String) {
        self.init(
            name: name,
            acousticModel: directory.appendingPathComponent(name, isDirectory: true),
            languageModel: directory.appendingPathComponent("\(name).lm.bin"),
            dictionary: directory.appendingPathComponent("cmudict-\(name).dict"))
    }

    /// Paths that must exist for the decoder to load; empty when the model is installed.
    public var missingPaths: [String] {
        let required = [
            acousticModel.appendingPathComponent("mdef"), acousticModel.appendingPathComponent("means"),
            languageModel, dictionary,
        ]
        return required.map(\.path).filter { !FileManager.default.fileExists(atPath: $0) }
    }

    public var isInstalled: Bool { missingPaths.isEmpty }
}
