import Foundation
import Testing

/// `caption --transcript` through the real tool: the captions hold the transcript's words as
/// written, timed from the recording; what the recording does not say is left out and said.
@Suite(.serialized, .timeLimit(.minutes(30))) struct TranscriptEndToEndTests {
    static let reference = try! String(contentsOf: CLI.fixtures.appendingPathComponent("two_cities.txt"), encoding: .utf8)
    static let unsaid = "This paragraph was written for the reading and never read aloud, so no time in the recording belongs to it."
    static let removed = "it was the season of Light, it was the season of Darkness, "

    /// The captions' words in order: the SRT's text lines, split at spaces.
    static func words(ofSRT text: String) -> [String] {
        text.components(separatedBy: "\n\n").flatMap { block in
            block.split(separator: "\n").dropFirst(2).flatMap { $0.split(separator: " ").map(String.init) }
        }
    }

    static func json(_ url: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    @Test func theCaptionsHoldTheTranscriptAsWrittenAndSayWhatWasNotSaid() throws {
        let scene = try HostileMuxTests.Scene("transcript-two-cities")
        defer { scene.remove() }
        try FileManager.default.copyItem(atPath: CLI.fixtures.appendingPathComponent("two_cities.webm").path, toPath: scene.path("two_cities.webm"))
        // A line never read, and a sentence read that the transcript lacks.
        let transcript = Self.reference.replacingOccurrences(of: Self.removed, with: "").trimmingCharacters(in: .newlines) + "\n" + Self.unsaid + "\n"
        _ = try scene.write("two_cities.txt", transcript)
        let plain = try CLI().run(["caption", scene.path("two_cities.webm"), "--out", scene.path("heard"), "--model", "tiny.en", "--formats", "json"])
        try #require(plain.status == 0, "\(plain.stderr)")
        let run = try CLI().run(["caption", scene.folder.path, "--transcript-beside", "--model", "tiny.en", "--formats", "srt,json"])
        try #require(run.status == 0, "\(run.stderr)")

        // Every word of the transcript, as written and in order, but the line never read.
        let expected = (Self.reference.replacingOccurrences(of: Self.removed, with: "")).split(whereSeparator: \.isWhitespace).map(String.init)
        let srt = try String(contentsOfFile: scene.path("two_cities.en.srt"), encoding: .utf8)
        #expect(Self.words(ofSRT: srt) == expected)
        // Said on the terminal, in the summary, and in the JSON.
        #expect(run.stdout.contains("transcript line 2: \u{201C}This paragraph was written") && run.stdout.contains("not heard"), "\(run.stdout)")
        #expect(run.stdout.contains("but not in the transcript: \u{201C}") && run.stdout.contains("season of"), "\(run.stdout)")
        let alignment = try #require(try Self.json(URL(fileURLWithPath: scene.path("two_cities.en.json")))["alignment"] as? [String: Any])
        let notHeard = try #require(alignment["notHeard"] as? [[String: Any]])
        #expect(notHeard.count == 1 && notHeard[0]["line"] as? Int == 2 && notHeard[0]["words"] as? Int == 20, "\(notHeard)")
        #expect((alignment["notInTranscript"] as? [[String: Any]])?.count == 1)

        // Each word heard by both runs starts where the recogniser heard it.
        func starts(_ json: [String: Any]) -> [(String, Double)] {
            (json["words"] as? [[String: Any]] ?? []).map { (($0["text"] as? String ?? "").lowercased().filter(\.isLetter), $0["start"] as? Double ?? -1) }
        }
        let heard = starts(try Self.json(URL(fileURLWithPath: scene.path("heard/two_cities.en.json"))))
        let aligned = starts(try Self.json(URL(fileURLWithPath: scene.path("two_cities.en.json"))))
        var differences: [Double] = []
        var next = 0
        for (text, start) in aligned {
            guard let found = heard[next...].firstIndex(where: { $0.0 == text && abs($0.1 - start) < 1 }) else { continue }
            differences.append(abs(heard[found].1 - start))
            next = found + 1
        }
        #expect(differences.count >= 90, "\(differences.count) words in common")
        #expect(differences.sorted()[differences.count / 2] <= 0.02, "\(differences)")

        // Current while the transcript is the same; done again when it changes.
        let again = try CLI().run(["caption", scene.folder.path, "--transcript-beside", "--model", "tiny.en", "--formats", "srt,json"])
        #expect(again.status == 0 && again.stdout.contains("0 captioned"), "\(again.stdout)")
        _ = try scene.write("two_cities.txt", Self.reference)
        let changed = try CLI().run(["caption", scene.folder.path, "--transcript-beside", "--model", "tiny.en", "--formats", "srt,json"])
        #expect(changed.status == 0 && changed.stdout.contains("1 captioned") && !changed.stdout.contains("not heard"), "\(changed.stdout)")
        #expect(Self.words(ofSRT: try String(contentsOfFile: scene.path("two_cities.en.srt"), encoding: .utf8))
            == Self.reference.split(whereSeparator: \.isWhitespace).map(String.init))
    }

    /// Japanese, cut into words by ICU and matched character by character against base's pieces.
    @Test func aJapaneseTranscriptIsCaptionedAsWritten() throws {
        guard FileManager.default.fileExists(atPath: CLI.models.appendingPathComponent("ggml-base.bin").path) else {
            Issue.record("the base model is not installed (Scripts/setup --with-base)")
            return
        }
        let scene = try HostileMuxTests.Scene("transcript-japanese")
        defer { scene.remove() }
        let transcript = CLI.fixtures.appendingPathComponent("japanese.txt").path
        let run = try CLI().run(["caption", CLI.fixtures.appendingPathComponent("japanese.mp4").path, "--transcript", transcript, "--out", scene.folder.path,
                                 "--model", "base", "--formats", "srt,json"])
        try #require(run.status == 0, "\(run.stderr)")
        let srt = try String(contentsOfFile: scene.path("japanese.ja.srt"), encoding: .utf8)
        let text = srt.components(separatedBy: "\n\n").flatMap { $0.split(separator: "\n").dropFirst(2) }.joined()
        #expect(text == (try String(contentsOfFile: transcript, encoding: .utf8)).filter { !$0.isNewline })
        let alignment = try #require(try Self.json(URL(fileURLWithPath: scene.path("japanese.ja.json")))["alignment"] as? [String: Any])
        #expect((alignment["notHeard"] as? [Any])?.isEmpty == true, "\(alignment)")
        #expect((alignment["matched"] as? Int ?? 0) >= 30, "\(alignment)")
        // The first sentence starts on the voice (0.03 s with base), not at a guess.
        let first = try #require(SyncEndToEndTests.times(srt).first)
        #expect(first < 0.3)
    }

    /// With the basic tier the transcript is still captioned whole, and flagged basic.
    @Test func theBasicTierTimesATranscriptAndItIsFlagged() throws {
        let scene = try HostileMuxTests.Scene("transcript-basic")
        defer { scene.remove() }
        let transcript = CLI.fixtures.appendingPathComponent("librivox-0870.txt").path
        let run = try CLI().run(["caption", CLI.fixtures.appendingPathComponent("librivox-0870.mkv").path, "--transcript", transcript, "--tier", "basic",
                                 "--out", scene.folder.path, "--formats", "srt,ass,json"])
        try #require(run.status == 0, "\(run.stderr)")
        let srt = try String(contentsOfFile: scene.path("librivox-0870.en.srt"), encoding: .utf8)
        #expect(Self.words(ofSRT: srt) == (try String(contentsOfFile: transcript, encoding: .utf8)).split(whereSeparator: \.isWhitespace).map(String.init))
        let json = try Self.json(URL(fileURLWithPath: scene.path("librivox-0870.en.json")))
        #expect(json["tier"] as? String == "basic")
        #expect(try String(contentsOfFile: scene.path("librivox-0870.en.ass"), encoding: .utf8).contains("Style: Basic"))
        #expect(run.stdout.contains("basic"))
    }

    @Test func transcriptsThatCannotBeUsedAreRefusedByName() throws {
        let scene = try HostileMuxTests.Scene("transcript-hostile")
        defer { scene.remove() }
        let fifo = scene.path("pipe.txt")
        #expect(mkfifo(fifo, 0o644) == 0)
        let text = try scene.write("talk.txt", "Hello there.")
        let video = CLI.fixtures.appendingPathComponent("librivox-0880.mkv").path
        let cases: [([String], String)] = [
            (["--transcript", fifo], "is a FIFO"),
            (["--transcript", "/dev/zero"], "is a character device"),
            (["--transcript", video], "not text"),
            (["--transcript", scene.path("missing.txt")], "does not exist"),
            (["--transcript", text, "--translate"], "translate the transcript instead"),
            (["--transcript", text, "--transcript-beside"], "not both"),
        ]
        for (extra, said) in cases {
            let result = try CLI().run(["caption", video, "--out", scene.path("out")] + extra)
            #expect(result.status == 2 && result.stderr.contains(said), "\(extra): \(result.stderr)")
        }
        // One transcript is one recording's.
        let many = try CLI().run(["caption", CLI.fixtures.appendingPathComponent("librivox-0880.mkv").path, CLI.fixtures.appendingPathComponent("librivox-0890.mkv").path,
                                  "--transcript", text, "--out", scene.path("out")])
        #expect(many.status == 2 && many.stderr.contains("2 inputs were found"), "\(many.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scene.path("out")))
    }

    /// Beside each input: one without a transcript is recognised (and says so), one whose
    /// transcript is another recording's fails, naming it; one whose transcript is a folder fails.
    @Test func transcriptsBesideEachInputAreTakenOneByOne() throws {
        let scene = try HostileMuxTests.Scene("transcript-beside")
        defer { scene.remove() }
        for name in ["librivox-0870", "librivox-0890", "librivox-0920", "librivox-0930"] {
            try FileManager.default.copyItem(atPath: CLI.fixtures.appendingPathComponent("\(name).mkv").path, toPath: scene.path("\(name).mkv"))
        }
        try FileManager.default.copyItem(atPath: CLI.fixtures.appendingPathComponent("librivox-0870.txt").path, toPath: scene.path("librivox-0870.txt"))
        _ = try scene.write("librivox-0890.txt", String(repeating: "Entirely different words about gardening tomatoes in the spring rain. ", count: 4))
        try FileManager.default.createDirectory(atPath: scene.path("librivox-0920.txt"), withIntermediateDirectories: false)
        // The plan says which transcript each file gets, before anything is heard.
        let plan = try CLI().run(["caption", scene.folder.path, "--transcript-beside", "--model", "tiny.en", "--dry-run"])
        #expect(plan.stdout.contains("librivox-0870.txt: its 22 words, timed from the audio") && plan.stdout.contains("librivox-0930.txt: captioned from what is heard")
            && plan.stdout.contains("librivox-0920.txt cannot be used, so the file will fail"), "\(plan.stdout)")
        let run = try CLI().run(["caption", scene.folder.path, "--transcript-beside", "--model", "tiny.en", "--formats", "srt"])
        #expect(run.status == 1, "\(run.stdout)")
        #expect(run.stdout.contains("does not match the speech"), "\(run.stdout)")
        #expect(run.stdout.contains("librivox-0920.txt is a folder"), "\(run.stdout)")
        #expect(run.stdout.contains("no librivox-0930.txt beside it: the captions hold what was heard"), "\(run.stdout)")
        #expect(FileManager.default.fileExists(atPath: scene.path("librivox-0870.en.srt")) && FileManager.default.fileExists(atPath: scene.path("librivox-0930.en.srt")))
        #expect(!FileManager.default.fileExists(atPath: scene.path("librivox-0890.en.srt")))
        // The transcripts are untouched.
        #expect(try String(contentsOfFile: scene.path("librivox-0870.txt"), encoding: .utf8)
            == (try String(contentsOfFile: CLI.fixtures.appendingPathComponent("librivox-0870.txt").path, encoding: .utf8)))
    }
}
