import Foundation
import Testing
import TestSupport

/// `--engine`: the same installed model run by libwhisper or by Capforge's own runtime.
@Suite(.serialized, .timeLimit(.minutes(30)))
struct EngineChoiceTests {
    let cli = CLI()

    /// The runtime, the default, captions a fixture within two words of libwhisper (on AVX-512 it
    /// hears "ill-disposed" where libwhisper writes "old-sposed"; without VNNI, 7-bit weights wrote
    /// "cold hearted"), and a change of engine redoes the file (its output is another engine's)
    /// rather than skipping it as current; naming the default changes nothing.
    @Test func theRuntimeCaptionsWhatLibwhisperCaptions() throws {
        let folder = try scratchFolder("engine")
        defer { try? FileManager.default.removeItem(at: folder) }
        try copyFixture("librivox-0890.mkv", to: folder)
        let model = CLI.models.appendingPathComponent("ggml-tiny.en.bin").path
        func words() throws -> [String] {
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("librivox-0890.en.json"))) as? [String: Any]
            return ((json?["words"] as? [[String: Any]]) ?? []).compactMap { $0["text"] as? String }
        }
        let library = try cli.run(["caption", folder.path, "--json", "--model", model, "--formats", "json", "--engine", "libwhisper"])
        #expect(library.status == 0, "\(library.stderr)")
        let heard = try words()
        let runtime = try cli.run(["caption", folder.path, "--json", "--model", model, "--formats", "json"])
        #expect(runtime.status == 0, "\(runtime.stderr)")
        #expect(runtime.events("file-done").count == 1, "a change of engine redoes the file")
        // The summary and the transcript say which ran.
        #expect(runtime.stderr.contains("tiny.en on capforge") || runtime.stdout.contains("tiny.en on capforge"), "\(runtime.stdout)")
        let transcript = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("librivox-0890.en.json"))) as? [String: Any]
        let engines = (transcript?["engines"] as? [[String: Any]]) ?? []
        #expect(engines.contains { $0["runtime"] as? String == "capforge" && $0["model"] as? String == "tiny.en" }, "\(engines)")
        let reference = try String(contentsOf: CLI.fixtures.appendingPathComponent("librivox-0890.txt"), encoding: .utf8)
        let runtimeWords = try words()
        let ours = WER.errors(reference: reference, hypothesis: runtimeWords.joined(separator: " "))
        let theirs = WER.errors(reference: reference, hypothesis: heard.joined(separator: " "))
        #expect(ours.edits <= theirs.edits + 2, "\(runtimeWords) against \(heard)")
        #expect(!heard.isEmpty)
        let again = try cli.run(["caption", folder.path, "--json", "--model", model, "--formats", "json", "--engine", "capforge"])
        #expect(again.events("file-skipped").count == 1)
    }

    @Test func anUnknownEngineOrAnOptionTheRuntimeLacksIsAUsageError() throws {
        let folder = try scratchFolder("engine-usage")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (extra, says) in [(["--engine", "ctranslate2"], "libwhisper or capforge"), (["--engine", "capforge", "--beam", "5"], "--beam"),
                              (["--engine", "capforge", "--precise-timing"], "--precise-timing")] {
            let run = try cli.run(["caption", folder.path] + extra)
            #expect(run.status == 2, "\(extra)")
            #expect(run.stderr.contains(says), "\(extra): \(run.stderr)")
        }
    }
}
