import Foundation
import Testing

/// Names and texts that try to act: file names holding terminal escape sequences (a window title
/// set, the screen cleared, a CSI in C1, a direction override) through every command; model file
/// names that would write cues and events into the captions; transcripts carrying subtitle
/// markup, not the recording's, or 10 MB on one line; model files whose vocabulary or weights are
/// not what their header says. Each through the real tool with the checked run: no signal, no
/// hang, no raw control character on the terminal, under a cap, nothing touched but the outputs.
///
/// The caps are about twice the peak measured (debug build, 2 cores); each run prints its peak.
@Suite(.serialized) struct HostileNamesTests {
    static let environment = CLI().environment
    static let tinyModel = CLI.models.appendingPathComponent("ggml-tiny.en.bin")
    /// A window title set and rung, the screen cleared, a CSI in its C1 form, a direction override.
    static let hostile = "a\u{1B}]0;owned\u{07}b\u{1B}[2Jc\u{9B}31md\u{202E}e"
    /// `hostile` as the tool shows it.
    static let shown = #"a\u{1B}]0;owned\u{7}b\u{1B}[2Jc\u{9B}31md\u{202E}e"#

    func run(_ arguments: [String], models: URL? = nil, cap: Double = 400) throws -> MeasuredRun {
        var environment = Self.environment
        if let models { environment["CAPFORGE_MODELS"] = models.path }
        return try MeasuredRun.checked(arguments, label: "hostile names", environment: environment, cap: cap)
    }

    /// A models folder of its own holding copies of tiny.en under `names`.
    static func models(_ scene: HostileMuxTests.Scene, _ names: [String]) throws -> URL {
        let folder = scene.folder.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in names { try FileManager.default.copyItem(at: tinyModel, to: folder.appendingPathComponent(name)) }
        return folder
    }

    /// The files of Capforge's state folder in the scene, which a caption run makes.
    static func state(_ scene: HostileMuxTests.Scene) -> [String] {
        listing(scene.folder).filter { $0.hasPrefix(".capforge") }
    }

    // MARK: names on the terminal

    @Test func namesThatActOnATerminalAreShownEscapedByEveryCommand() throws {
        let scene = try HostileMuxTests.Scene("names-terminal")
        defer { scene.remove() }
        let video = scene.path("talk\(Self.hostile).mp4")
        try FileManager.default.copyItem(atPath: CLI.fixtures.appendingPathComponent("startoffset.mp4").path, toPath: video)
        let subs = try scene.write("s\(Self.hostile).srt", HostileMuxTests.oneCue)
        let models = try Self.models(scene, ["ggml-\(Self.hostile).bin"])
        let before = scene.snapshot()
        let model = ["--model", Self.tinyModel.path]
        // The exit status where the name alone decides it; lint and sync judge the file too.
        let cases: [(String, [String], Int32?)] = [
            ("lint", ["lint", subs, "--video", video], nil),
            ("lint, missing", ["lint", scene.path("gone\(Self.hostile).srt")], 1),
            ("probe", ["probe", video], 0),
            ("dry run", ["caption", scene.folder.path, "--dry-run"] + model, 0),
            ("burn", ["burn", video, "--subs", subs, "-o", scene.path("b\(Self.hostile).mp4")], 0),
            ("mux", ["mux", video, subs, "-o", scene.path("m\(Self.hostile).mkv")], 0),
            ("extract", ["extract", video, "-o", scene.path("x\(Self.hostile).f32")], 0),
            ("sync", ["sync", video, subs, "-o", scene.path("y\(Self.hostile).srt")] + model, nil),
            ("caption", ["caption", video, "--formats", "srt"] + model, 0),
        ]
        for (name, arguments, status) in cases {
            let result = try run(arguments)
            #expect(status.map { result.status == $0 } ?? true, "\(name): exit \(result.status): \(result.output)")
            #expect(result.output.contains(Self.shown), "\(name): \(result.output)")
        }
        let listed = try run(["models", "list"], models: models)
        #expect(listed.status == 0 && listed.stdout.contains("ggml-\(Self.shown).bin  BROKEN") && listed.stdout.contains("control characters"), "\(listed.stdout)")
        // Machine output keeps the name exactly, in valid JSON.
        let probed = try run(["probe", video, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(probed.stdout.utf8)) as? [String: Any])
        #expect(object["path"] as? String == video)
        let events = try run(["caption", video, "--formats", "srt", "--json", "--force"] + model)
        let done = events.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["event"] as? String == "file-done" }
        #expect(done?["file"] as? String == video, "\(events.stdout)")
        // The captions' own name is made safe when it is chosen.
        let captions = listing(scene.folder).filter { $0.hasSuffix(".en.srt") }
        #expect(captions.count == 1 && !captions.joined().unicodeScalars.contains(where: MeasuredRun.actsOnATerminal), "\(captions)")
        scene.expectUntouched(since: before, outputs: captions + ["b\(Self.hostile).mp4", "m\(Self.hostile).mkv", "x\(Self.hostile).f32",
                                                                  "y\(Self.hostile).srt"] + Self.state(scene))
    }

    // MARK: model names in the captions

    /// A model file name holding a cue for WebVTT and an event for ASS is refused at the source
    /// (listed broken, ignored with a warning), and a plain name holding "-->" is written so that
    /// no WebVTT reader takes it for a cue.
    @Test func modelFileNamesCannotWriteIntoTheCaptions() throws {
        let scene = try HostileMuxTests.Scene("names-models")
        defer { scene.remove() }
        let injected = "ggml-tiny.en\n\n00:00:00.000 --> 00:00:05.000\nINJECTED\nDialogue: 0,0:00:00.00,0:00:05.00,Default,,0,0,0,,INJECTED.bin"
        let models = try Self.models(scene, [injected, "ggml-a-->b.bin"])
        let video = scene.path("talk.mp4")
        try FileManager.default.copyItem(atPath: CLI.fixtures.appendingPathComponent("startoffset.mp4").path, toPath: video)

        let listed = try run(["models", "list"], models: models)
        let rows = listed.stdout.split(separator: "\n").filter { $0.hasPrefix("  whisper") }
        #expect(rows.count == 2 && rows.filter { $0.contains("BROKEN") && $0.contains("control characters") }.count == 1, "\(listed.stdout)")
        #expect(!listed.stdout.contains("\nINJECTED") && !listed.stdout.contains("\nDialogue"), "\(listed.stdout)")

        let result = try run(["caption", video, "--formats", "srt,vtt,ass,json"], models: models)
        #expect(result.status == 0 && result.output.contains("warning: ignoring the Whisper model") && result.output.contains("control characters"),
                "\(result.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scene.path("talk.en.json")))) as? [String: Any])
        let cues = try #require(json["cues"] as? [Any]).count
        #expect(cues > 0)
        let vtt = try String(contentsOfFile: scene.path("talk.en.vtt"), encoding: .utf8)
        #expect(vtt.components(separatedBy: "\n").filter { $0.contains("-->") }.count == cues, "\(vtt)")
        #expect(vtt.contains("model a-->b") == false && vtt.contains("model a--\u{2060}>b"), "\(vtt)")
        let ass = try String(contentsOfFile: scene.path("talk.en.ass"), encoding: .utf8)
        #expect(ass.components(separatedBy: "\n").filter { $0.hasPrefix("Dialogue:") }.count == cues, "\(ass)")
        for file in ["talk.en.srt", "talk.en.vtt", "talk.en.ass"] {
            #expect(try !String(contentsOfFile: scene.path(file), encoding: .utf8).contains("INJECTED"), "\(file)")
        }
        let named = try run(["caption", video, "--model", models.appendingPathComponent(injected).path, "--force"], models: models)
        #expect(named.status == 1 && named.stderr.contains("control characters"), "\(named.output)")
    }

    // MARK: transcripts

    /// Subtitle markup in a transcript is not words: no caption file carries it (libass obeys
    /// `{\an8}` in SRT), a brace the transcript means shows as itself, and what was left out is said.
    @Test func transcriptMarkupIsLeftOutOfEveryFormat() throws {
        let scene = try HostileMuxTests.Scene("names-markup")
        defer { scene.remove() }
        let video = scene.path("talk.mp4")
        try FileManager.default.copyItem(atPath: CLI.fixtures.appendingPathComponent("startoffset.mp4").path, toPath: video)
        let transcript = try scene.write("talk.txt", #"{\an8}{\fs120}He was <i>not</i> an <font color="red">ill</font> disposed {sighs} young <b>man</b>"# + "\n")
        let result = try run(["caption", video, "--transcript", transcript, "--formats", "srt,vtt,ass,json", "--model", Self.tinyModel.path])
        #expect(result.status == 0 && result.output.contains("formatting markup {\\an8} left out"), "\(result.output)")
        let srt = try String(contentsOfFile: scene.path("talk.en.srt"), encoding: .utf8)
        let vtt = try String(contentsOfFile: scene.path("talk.en.vtt"), encoding: .utf8)
        let ass = try String(contentsOfFile: scene.path("talk.en.ass"), encoding: .utf8)
        for (name, text) in [("srt", srt), ("vtt", vtt)] {
            #expect(text.replacingOccurrences(of: "\n", with: " ").contains("not an ill") && !text.contains("\\an8") && !text.contains("\\fs") && !text.contains("<i>") && !text.contains("font"),
                    "\(name): \(text)")
        }
        let events = ass.components(separatedBy: "\n").filter { $0.hasPrefix("Dialogue:") }.joined(separator: "\n")
        #expect(events.replacingOccurrences(of: "\\N", with: " ").contains("not an ill") && !events.contains("\\an8") && !events.contains("\\fs120") && !events.contains("<i>"), "\(events)")
        // A brace the transcript means is text: shown, never an override libass would hide.
        #expect(srt.contains("\u{FF5B}sighs\u{FF5D}") && !srt.contains("{sighs}") && vtt.contains("{sighs}"), "\(srt)")
    }

    /// A short transcript of another text fails as not matching the speech; one of sound
    /// descriptions only is captioned where nothing was heard, and every word heard is named.
    @Test func transcriptsThatDoNotBelongFailOrNameTheSpeech() throws {
        let scene = try HostileMuxTests.Scene("names-belong")
        defer { scene.remove() }
        let video = scene.path("talk.mkv")
        try FileManager.default.copyItem(atPath: CLI.fixtures.appendingPathComponent("librivox-0870.mkv").path, toPath: video)
        let unrelated = try scene.write("unrelated.txt", "Quantum physics explains why bananas taste better in the morning\n")
        let failed = try run(["caption", video, "--transcript", unrelated, "--formats", "srt,json", "--model", Self.tinyModel.path])
        #expect(failed.status == 1 && failed.stdout.contains("does not match the speech: 0 of its 10 words were heard"), "\(failed.output)")

        let brackets = try scene.write("brackets.txt", "[music] [applause]\n")
        let described = try run(["caption", video, "--transcript", brackets, "--formats", "srt,json", "--model", Self.tinyModel.path])
        #expect(described.status == 0 && described.output.contains("but not in the transcript"), "\(described.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scene.path("talk.en.json")))) as? [String: Any])
        let alignment = try #require(json["alignment"] as? [String: Any])
        let named = (alignment["notInTranscript"] as? [[String: Any]] ?? []).reduce(0) { $0 + ($1["words"] as? Int ?? 0) }
        let heard = (json["words"] as? [Any])?.count ?? 0
        #expect(named >= 15, "\(alignment)")
        #expect(heard == 2, "the captions hold the descriptions only")
        let srt = try String(contentsOfFile: scene.path("talk.en.srt"), encoding: .utf8)
        #expect(srt.contains("[music]") && srt.contains("[applause]") && !srt.lowercased().contains("dashwood"), "\(srt)")
    }

    /// 10 MB on one line (under the 32 MB limit) for a 3 s recording: refused once more words
    /// are read than the recording can hold, in seconds and bounded memory, saying why.
    @Test func aTenMegabyteOneLineTranscriptIsRefusedBounded() throws {
        let scene = try HostileMuxTests.Scene("names-huge")
        defer { scene.remove() }
        let video = scene.path("talk.mp4")
        try FileManager.default.copyItem(atPath: CLI.fixtures.appendingPathComponent("startoffset.mp4").path, toPath: video)
        let words = ["he", "was", "not", "an", "ill", "disposed", "young", "man", "unless", "rather", "cold", "hearted"]
        var line = ""
        line.reserveCapacity(10_000_100)
        var index = 0
        while line.utf8.count < 10_000_000 {
            line += words[index % words.count] + " "
            index += 7
        }
        let transcript = try scene.write("talk.txt", line)
        let before = scene.snapshot()
        for extra in [["--formats", "srt"], ["--dry-run"]] {
            let result = try run(["caption", video, "--transcript", transcript, "--model", Self.tinyModel.path] + extra, cap: 300)
            #expect(result.output.contains("has more than 100 words, more than the recording's 0:03 can hold"), "\(extra): \(result.output)")
            #expect(result.status == 1 || extra == ["--dry-run"], "\(extra): \(result.output)")
            #expect(result.seconds < 120, "\(extra): \(result.seconds) s")
        }
        scene.expectUntouched(since: before, outputs: Self.state(scene))
    }

    // MARK: models that are not what their header says

    /// From tiny.en: a multilingual header over its English vocabulary, its vocabulary cut to
    /// 100 tokens, NaN in its last weights. Each is refused at load with what is wrong and what
    /// to do, and listed broken; none is changed.
    @Test func modelsWhoseVocabularyOrWeightsLieAreRefused() throws {
        let scene = try HostileMuxTests.Scene("names-vocabulary")
        defer { scene.remove() }
        let models = scene.folder.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        let good = try Data(contentsOf: Self.tinyModel)
        func int32(_ offset: Int) -> Int { Int(Int32(littleEndian: good.subdata(in: offset..<offset + 4).withUnsafeBytes { $0.loadUnaligned(as: Int32.self) })) }
        var multilingual = good
        multilingual.replaceSubrange(4..<8, with: withUnsafeBytes(of: Int32(51_865).littleEndian, Array.init))
        // The vocabulary follows the 48-byte header and the mel filters.
        let vocabulary = 48 + 8 + int32(48) * int32(52) * 4
        var end = vocabulary + 4
        var hundred = 0
        for token in 0..<int32(vocabulary) {
            if token == 100 { hundred = end }
            end += 4 + int32(end)
        }
        var cut = good.prefix(vocabulary)
        cut += withUnsafeBytes(of: Int32(100).littleEndian, Array.init)
        cut += good[(vocabulary + 4)..<hundred] + good[end...]
        var nan = good
        nan.replaceSubrange((good.count - 64)..<good.count, with: Data(repeating: 0xFF, count: 64))
        let cases: [(String, Data, String)] = [
            ("multilingual", multilingual, "its vocabulary has 50256 tokens, where a multilingual model (n_vocab 51865 in its header) has 50257"),
            ("cut", cut, "its vocabulary has 100 tokens, where an English-only model (n_vocab 51864 in its header) has 50256"),
            ("nan", nan, "its weights hold a value that is not a number (NaN or infinite): tensor"),
        ]
        for (name, bytes, _) in cases { try bytes.write(to: models.appendingPathComponent("ggml-\(name).bin")) }
        let before = scene.snapshot()
        let listed = try run(["models", "list"], models: models)
        for (name, _, reason) in cases {
            #expect(listed.stdout.contains("ggml-\(name).bin  BROKEN, ignored: \(reason)"), "\(name): \(listed.stdout)")
            let result = try run(["caption", scene.video, "--model", models.appendingPathComponent("ggml-\(name).bin").path, "--formats", "srt"], models: models)
            #expect(result.status == 1 && result.stderr.contains("ggml-\(name).bin is not usable: \(reason)") && result.stderr.contains("capforge models import"),
                    "\(name): \(result.output)")
            #expect(!result.output.contains("CTranslate2 Whisper model"), "\(name): \(result.output)")
        }
        scene.expectUntouched(since: before, outputs: listing(models).filter { $0.hasPrefix(".capforge") }.map { "models/\($0)" })
    }
}
