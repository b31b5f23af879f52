import CapforgeCore
import Foundation

/// Real audio for the basic-tier tests: Debian's pocketsphinx-testdata and espeak-ng speech.
enum BasicTestAudio {
    static let testData = URL(fileURLWithPath: "/usr/share/pocketsphinx/test/data")
    static let librivox = testData.appendingPathComponent("librivox")

    /// Headerless 16 kHz little-endian int16, skipping `headerBytes` (44 for the LibriVox wavs).
    static func pcm16(_ url: URL, headerBytes: Int = 0) throws -> [Float] {
        let data = try Data(contentsOf: url)
        return data.dropFirst(headerBytes).withUnsafeBytes { raw in
            (0..<raw.count / 2).map { i in
                Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: i * 2, as: Int16.self))) / 32768
            }
        }
    }

    static func goForward() throws -> [Float] {
        try pcm16(testData.appendingPathComponent("goforward.raw"))
    }

    /// `clips` placed at their times (seconds) inside digital silence of `duration` seconds.
    static func placed(_ clips: [(at: Double, samples: [Float])], duration: Double) -> [Float] {
        var out = [Float](repeating: 0, count: Int(duration * Double(MonoAudio.sampleRate)))
        for clip in clips {
            let offset = Int(clip.at * Double(MonoAudio.sampleRate))
            out.replaceSubrange(offset..<offset + clip.samples.count, with: clip.samples)
        }
        return out
    }

    /// Reference transcripts from the `transcription` file, by file id.
    static func librivoxReferences() throws -> [String: [String]] {
        let text = try String(contentsOf: librivox.appendingPathComponent("transcription"), encoding: .utf8)
        var references: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            guard let open = line.lastIndex(of: "("), let close = line.lastIndex(of: ")") else { continue }
            let id = String(line[line.index(after: open)..<close])
            let words = line[..<open].split(separator: " ").map(String.init).filter { $0 != "<s>" && $0 != "</s>" }
            references[id] = words
        }
        return references
    }

    /// Word error rate: word-level edit distance over the reference length.
    static func wordErrorRate(reference: [String], hypothesis: [String]) -> Double {
        var previous = Array(0...hypothesis.count)
        for (i, ref) in reference.enumerated() {
            var current = [i + 1] + [Int](repeating: 0, count: hypothesis.count)
            for (j, hyp) in hypothesis.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ref == hyp ? 0 : 1))
            }
            previous = current
        }
        return Double(previous[hypothesis.count]) / Double(max(1, reference.count))
    }

    /// Speech synthesised now with espeak-ng, resampled to 16 kHz int16 by sox.
    static func synthesised(_ text: String, voice: String) throws -> [Float] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-basic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let wav = folder.appendingPathComponent("speech.wav").path
        let raw = folder.appendingPathComponent("speech.raw")
        try run("/usr/bin/espeak-ng", ["-v", voice, "-w", wav, text])
        // -D: no dither, so the test audio is the same on every run.
        try run("/usr/bin/sox", ["-D", wav, "-t", "raw", "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", raw.path])
        return try pcm16(raw)
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(tool) exited with \(process.terminationStatus)"])
        }
    }
}
