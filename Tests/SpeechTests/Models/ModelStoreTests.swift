import CapforgeCore
import Foundation
import Testing
@testable import Speech

@Suite struct ModelStoreTests {
    @Test func foldersFollowEnvironmentThenUserThenInstalledPrefix() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-prefix-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let installed = prefix.appendingPathComponent("share/capforge/models")
        try FileManager.default.createDirectory(at: installed, withIntermediateDirectories: true)
        let executable = prefix.appendingPathComponent("bin/capforge")
        let explicit = ModelStore(environment: ["CAPFORGE_MODELS": "/m", "XDG_DATA_HOME": "/x", "HOME": "/h"], executable: executable)
        #expect(explicit.searchPath.map(\.path) == ["/m"])
        #expect(ModelStore(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"], executable: executable).searchPath.map(\.path)
            == ["/x/capforge/models", installed.path])
        #expect(ModelStore(environment: ["CAPFORGE_MODELS": "", "HOME": "/h"], executable: nil).searchPath.map(\.path) == ["/h/.local/share/capforge/models"])
        // A binary outside an install prefix (a build folder) has no installed models.
        #expect(ModelStore(environment: ["HOME": "/h"], executable: URL(fileURLWithPath: "/nowhere/bin/capforge")).sharedDirectories.isEmpty)
    }

    @Test func installedModelsAreListedAfterTheUsersAndOneOfANameIsKept() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-search-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let user = root.appendingPathComponent("user"), shared = root.appendingPathComponent("shared")
        for folder in [user, shared] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        let model = try WhisperFixtures.tinyEnModel.get()
        try FileManager.default.createSymbolicLink(at: shared.appendingPathComponent("ggml-tiny.en.bin"), withDestinationURL: model)
        try FileManager.default.createSymbolicLink(at: shared.appendingPathComponent("ggml-other.bin"), withDestinationURL: model)
        try FileManager.default.createSymbolicLink(at: user.appendingPathComponent("ggml-tiny.en.bin"), withDestinationURL: model)
        let store = ModelStore(directory: user, sharedDirectories: [shared])
        let listed = try store.list(digests: false)
        #expect(listed.map(\.name) == ["tiny.en", "other"])
        #expect(listed.first?.url.deletingLastPathComponent().path == user.path)
        #expect(store.url(forModelNamed: "new").deletingLastPathComponent().path == user.path)
        #expect(store.file(named: "ggml-other.bin")?.deletingLastPathComponent().path == shared.path)
        #expect(store.file(named: "ggml-silero-v6.2.0.bin") == nil)
    }

    @Test func importedModelIsListedWithItsFacts() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-models-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = ModelStore(directory: folder)
        #expect(try store.list().isEmpty)

        // Digests are checked on a small file below: hashing 78 MB in a debug build is slow.
        let imported = try store.importCT2(from: WhisperFixtures.ct2TinyEn, digest: false)
        try Data("not a model".utf8).write(to: folder.appendingPathComponent("ggml-junk.bin"))
        try Data("notes".utf8).write(to: folder.appendingPathComponent("README"))
        let listed = try store.list(digests: false)
        #expect(listed.filter { $0.problem == nil } == [imported])
        // A broken file named like a model is listed as broken, with why, never silently skipped.
        let junk = try #require(listed.first { $0.name == "junk" })
        #expect(junk.problem == "it is not a ggml Whisper model" && junk.languages.isEmpty)
        #expect(imported.engine == "whisper" && imported.name == "tiny.en")
        #expect(imported.url == store.url(forModelNamed: "tiny.en"))
        #expect(imported.isEnglishOnly && imported.languages == [.english] && imported.weightType == "f16")
        let bytes = try Data(contentsOf: imported.url)
        #expect(imported.sizeBytes == Int64(bytes.count))
        #expect(bytes == (try Data(contentsOf: try WhisperFixtures.tinyEnModel.get())))
        // No temporaries are left behind by the atomic write; the ledger of what Capforge wrote is kept in .capforge.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [".capforge", "README", "ggml-junk.bin", "ggml-tiny.en.bin"])
    }

    @Test func multilingualHeaderListsItsLanguagesAndDigest() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-models-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = SyntheticModel.bytes(SyntheticModel.multilingual)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try model.write(to: folder.appendingPathComponent("ggml-base.bin"))
        let listed = try #require(try ModelStore(directory: folder).list().first)
        #expect(listed.problem == nil)
        #expect(listed.name == "base" && !listed.isEnglishOnly && listed.sizeBytes == Int64(model.count))
        #expect(listed.languages.count == 99 && listed.languages.first == .english && listed.languages.map(\.code).contains("ko"))
        #expect(listed.sha256 == SHA256.hex(of: model))
        #expect(try ModelStore(directory: folder).describe(modelAt: listed.url) == listed)
        let elsewhere = folder.appendingPathComponent("README")
        try Data("text".utf8).write(to: elsewhere)
        #expect(throws: SpeechError.modelInvalid(path: elsewhere.path, reason: "it is not a ggml Whisper model")) {
            try ModelStore(directory: folder).describe(modelAt: elsewhere)
        }
    }

    @Test func importingANonModelFolderSaysWhatIsMissing() {
        let empty = FileManager.default.temporaryDirectory
        let store = ModelStore(directory: empty.appendingPathComponent("unused-\(UUID().uuidString)"))
        #expect(throws: ModelImportError.missingFile(path: empty.appendingPathComponent("model.bin").path)) {
            try store.importCT2(from: empty, name: "x")
        }
    }
}

@Suite struct SHA256Tests {
    @Test func standardVectors() {
        #expect(SHA256.hex(of: Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: Data(repeating: UInt8(ascii: "a"), count: 1_000_000))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        var pieces = SHA256()
        for chunk in stride(from: 0, to: 1_000_000, by: 999) { pieces.update(Data(repeating: 0x61, count: min(999, 1_000_000 - chunk))) }
        #expect(pieces.finalize() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
