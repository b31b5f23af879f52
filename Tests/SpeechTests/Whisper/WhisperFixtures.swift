import CapforgeCore
import Foundation
@testable import Speech

/// Real inputs for the Whisper tests: the tiny.en model Scripts/setup unpacked (converted
/// once and cached), and the LibriVox clips of Debian's pocketsphinx-testdata.
enum WhisperFixtures {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let ct2TinyEn = repositoryRoot.appendingPathComponent(".deps/ct2/tiny.en")
    static let cachedModel = repositoryRoot.appendingPathComponent(".deps/models/ggml-tiny.en.bin")
    static let ct2Base = repositoryRoot.appendingPathComponent(".deps/ct2/base")
    static let cachedBaseModel = repositoryRoot.appendingPathComponent(".deps/models/ggml-base.bin")
    static var hasBase: Bool { FileManager.default.fileExists(atPath: ct2Base.appendingPathComponent("model.bin").path) }
    static let librivox = URL(fileURLWithPath: "/usr/share/pocketsphinx/test/data/librivox")

    /// The converted tiny.en, written on first use so the suite converts it at most once.
    static let tinyEnModel: Result<URL, Error> = Result { try converted(ct2TinyEn, cachedAt: cachedModel) }

    /// tiny.en with q8_0 weights (`capforge models import --type q8_0`), cached likewise but
    /// outside the models folder, where it would join the models the end-to-end tests choose from.
    static let tinyEnQ8Model: Result<URL, Error> = Result {
        try converted(ct2TinyEn, cachedAt: repositoryRoot.appendingPathComponent(".deps/test-models/ggml-tiny.en-q8_0.bin"), weights: .q8_0)
    }

    /// The multilingual base (Scripts/setup --with-base), converted once and cached likewise.
    static let baseModel: Result<URL, Error> = Result { try converted(ct2Base, cachedAt: cachedBaseModel) }

    private static func converted(_ ct2: URL, cachedAt cache: URL, weights: WeightEncoding = .f16) throws -> URL {
        if !FileManager.default.fileExists(atPath: cache.path) {
            try AtomicFile.write(try CT2WhisperConverter.convert(directory: ct2, weights: weights), to: cache, policy: OutputPolicy(ledgers: []))
        }
        return cache
    }

    /// German speech from espeak-ng, resampled by sox to 16 kHz mono PCM16.
    static func germanSpeech() throws -> MonoAudio {
        let wav = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-de-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: wav) }
        let text = "Guten Morgen, meine Damen und Herren. Heute sprechen wir über das Wetter in Berlin und die Geschichte der Stadt."
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "espeak-ng -v de \"$1\" --stdout | sox -t wav - -r 16000 -c 1 -b 16 -e signed-integer \"$2\"", "sh", text, wav.path]
        try shell.run()
        shell.waitUntilExit()
        guard shell.terminationStatus == 0 else { throw WAVError(description: "espeak-ng | sox failed (\(shell.terminationStatus))") }
        return try readPCM16Mono(wav)
    }

    /// One engine for the whole suite: loading is cheap, but tests run in parallel and the
    /// engine serialises them anyway.
    static let tinyEnEngine: Result<WhisperEngine, Error> = Result {
        try WhisperEngine(modelPath: try tinyEnModel.get().path, options: WhisperOptions())
    }

    struct Clip {
        var name: String
        var audio: MonoAudio
        var reference: String
    }

    /// Each clip with its reference from the `transcription` file.
    static func librivoxClips() throws -> [Clip] {
        let lines = try String(contentsOf: librivox.appendingPathComponent("transcription"), encoding: .utf8)
            .split(separator: "\n")
        return try lines.map { line in
            let open = line.lastIndex(of: "(")!
            let name = String(line[line.index(after: open)..<line.lastIndex(of: ")")!])
            let text = line[..<open].replacingOccurrences(of: "<s>", with: "").replacingOccurrences(of: "</s>", with: "")
            let audio = try readPCM16Mono(librivox.appendingPathComponent("\(name).wav"))
            return Clip(name: name, audio: audio, reference: text.trimmingCharacters(in: .whitespaces))
        }
    }

    struct WAVError: Error, CustomStringConvertible { var description: String }

    /// A canonical 44-byte-header WAV of 16 kHz mono 16-bit PCM, checked field by field.
    static func readPCM16Mono(_ url: URL) throws -> MonoAudio {
        let data = try Data(contentsOf: url)
        func u16(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        func tag(_ at: Int) -> String { String(decoding: data[at..<at + 4], as: UTF8.self) }
        guard data.count >= 44, tag(0) == "RIFF", tag(8) == "WAVE", tag(12) == "fmt ", u32(16) == 16,
              u16(20) == 1, u16(22) == 1, u32(24) == 16_000, u16(34) == 16, tag(36) == "data",
              u32(40) <= data.count - 44 else {
            throw WAVError(description: "\(url.path) is not a 44-byte-header 16 kHz mono PCM16 WAV")
        }
        let samples = (0..<u32(40) / 2).map { i in Float(Int16(bitPattern: UInt16(u16(44 + 2 * i)))) / 32768 }
        return MonoAudio(samples: samples)
    }
}
