import Foundation
import Testing

/// Hostile and awkward inputs to `capforge sync`, through the real tool: each ends by itself with
/// an error naming the file, or succeeds saying what it did; under a memory cap; writing nothing
/// but its own output. (Caps: about twice a measured peak, debug build, 2 cores.)
@Suite(.serialized) struct HostileSyncTests {
    static let cap = 400.0

    func run(_ arguments: [String]) throws -> MeasuredRun {
        try MeasuredRun.checked(["sync"] + arguments + ["--model", "tiny.en"], label: "hostile sync", environment: HostileMuxTests.environment, cap: Self.cap)
    }

    @Test func specialFilesVideosAndInputsAsOutputAreRefusedByName() throws {
        let scene = try HostileMuxTests.Scene("sync-special")
        defer { scene.remove() }
        let subs = try scene.write("talk.srt", HostileMuxTests.oneCue)
        let fifo = scene.path("pipe.srt")
        #expect(mkfifo(fifo, 0o644) == 0)
        let sparse = scene.path("sparse.srt")
        #expect(truncate(try scene.write("sparse.srt", ""), 2_000_000_000) == 0)
        let before = scene.snapshot()
        let cases: [([String], String, String)] = [
            ([scene.video, fifo], fifo, "is a FIFO"),
            ([scene.video, "/dev/zero"], "/dev/zero", "is a character device"),
            ([scene.video, sparse], sparse, "is larger than 64 MB"),
            ([scene.video, scene.video], scene.video, "not a text file"),
            ([scene.video, subs, "-o", subs], subs, "one of the input files"),
            ([scene.video, subs, "-o", scene.video], scene.video, "one of the input files"),
            ([scene.path("missing.mp4"), subs], scene.path("missing.mp4"), "no such file"),
        ]
        for (arguments, named, said) in cases {
            let result = try run(arguments)
            #expect(result.status == 1 && result.stderr.contains(named) && result.stderr.contains(said), "\(arguments): \(result.stderr)")
        }
        scene.expectUntouched(since: before)
    }

    /// A video with nothing said: the words fail, the speech is not there, and both are said.
    @Test func aSilentVideoKeepsTheTimesAndSaysWhy() throws {
        let scene = try HostileMuxTests.Scene("sync-silent")
        defer { scene.remove() }
        let silent = try scene.media("silent.mp4", ["-f", "lavfi", "-i", "color=c=black:s=160x90:d=4", "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono",
                                                    "-t", "4", "-c:v", "libx264", "-c:a", "aac"])
        let subs = try scene.write("talk.srt", HostileMuxTests.oneCue)
        let result = try run([silent, subs, "-o", scene.path("out.srt")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("timed by where speech is") && result.stderr.contains("no speech was found"), "\(result.stderr)")
        #expect(try String(contentsOfFile: scene.path("out.srt"), encoding: .utf8) == HostileMuxTests.oneCue)
    }

    /// 100,000 cues running for days over a 3 s clip: bounded work and memory, every cue past
    /// the clip left out and said.
    @Test func aHundredThousandCuesOverAShortClipEndBoundedAndSaid() throws {
        let scene = try HostileMuxTests.Scene("sync-many")
        defer { scene.remove() }
        let text = (0..<100_000).map { i in
            "\(i + 1)\n\(stamp(i * 3000)) --> \(stamp(i * 3000 + 2000))\nline number \(i) of many\n"
        }.joined(separator: "\n")
        let subs = try scene.write("many.srt", text)
        let before = scene.snapshot()
        let result = try run([scene.video, subs, "-o", scene.path("out.srt"), "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect((json["unplaced"] as? [Any])?.count ?? 0 >= 99_990)
        // Named up to a screenful, then counted.
        #expect(((json["warnings"] as? [String]) ?? []).count < 30)
        scene.expectUntouched(since: before, outputs: ["out.srt"])
    }

    // MARK: the re-timer works on the parsed document

    /// TTML written as any tool may write it. The clip's tone is no speech, so every cue keeps its
    /// time: the copy must be the file itself, every cue and byte kept, each time written back in
    /// its own form (ticks, frames at 29.97 with sub-frames, clock, offsets).
    static let ttmlDocuments: [(name: String, bytes: [UInt8], cues: Int)] = {
        let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tt xmlns=\"http://www.w3.org/ns/ttml\" xmlns:ttp=\"http://www.w3.org/ns/ttml#parameter\""
        let ticks = (0..<17).map { "<p begin=\"\(1_000_000 + $0 * 1_500_000)t\" end=\"\(2_000_000 + $0 * 1_500_000)t\">cue \($0)</p>" }.joined(separator: "\n")
        func utf16(_ text: String) -> [UInt8] { text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
        return [
            ("order.ttml", Array((head + "><body><div>\n<p end=\"00:00:02.000\" xml:id=\"a\" begin=\"00:00:00.500\">End first</p>\n</div></body></tt>\n").utf8), 1),
            ("ticks.ttml", Array((head + " ttp:tickRate=\"10000000\"><body><div>\n" + ticks + "\n</div></body></tt>\n").utf8), 17),
            ("frames.ttml", Array((head + " ttp:frameRate=\"30\" ttp:frameRateMultiplier=\"1000 1001\" ttp:subFrameRate=\"2\"><body>\n"
                + "<p begin=\"00:00:00:15\" dur=\"20f\">Frames</p>\n<p begin=\"00:00:01:10.1\" end=\"00:00:02:10\">Sub-frames</p>\n</body></tt>\n").utf8), 2),
            ("inside.ttml", Array((head + " xmlns:foo=\"urn:example\"><body>\n<!-- <p begin=\"0s\" end=\"9s\">a comment</p> -->\n"
                + "<p title=\"begin='0.2s' end='9s'\" foo:end=\"7s\" begin=\"0.5s\" end=\"2s\"><![CDATA[<p begin=\"1s\">]]> in <span foo:x=\"a>b\">nested <span>spans</span></span><?pi end=\"1s\"?></p>\n"
                + "</body></tt>\n").utf8), 1),
            ("latin1.ttml", Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><p begin=\"1s\" end=\"2s\">caf".utf8)
                + [0xE9] + Array("</p></body></tt>\n".utf8), 1),
            ("utf16.ttml", utf16("<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><p end=\"2s\" begin=\"1s\">café ☕</p></body></tt>\n"), 1),
        ]
    }()

    @Test func ttmlInAnyAttributeOrderTimeFormAndMarkupComesBackWholeByteForByte() throws {
        let scene = try HostileMuxTests.Scene("sync-ttml")
        defer { scene.remove() }
        for (name, bytes, _) in Self.ttmlDocuments { try Data(bytes).write(to: scene.folder.appendingPathComponent(name)) }
        let before = scene.snapshot()
        for (name, bytes, cues) in Self.ttmlDocuments {
            let result = try run([scene.video, scene.path(name), "-o", scene.path("out-" + name)])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(result.stdout.contains("\(cues) of \(cues) cues re-timed"), "\(name): \(result.stdout)")
            #expect(try [UInt8](Data(contentsOf: scene.folder.appendingPathComponent("out-" + name))) == bytes, "\(name) changed")
        }
        scene.expectUntouched(since: before, outputs: Self.ttmlDocuments.map { "out-" + $0.name })
    }

    /// WebVTT's notes (one naming a time), style and region blocks, and ASS whose Format line puts
    /// End before Start, come back byte for byte.
    @Test func webVTTNotesAndASSInAnyFormatOrderComeBackByteForByte() throws {
        let scene = try HostileMuxTests.Scene("sync-blocks")
        defer { scene.remove() }
        let files = [
            ("notes.vtt", "WEBVTT\n\nNOTE\n00:01.000 --> 00:02.000\n\nSTYLE\n::cue { color: lime }\n\nREGION\nid:r width:40%\n\n00:00:00.500 --> 00:00:02.000 region:r\nHello\n"),
            ("order.ass", "[Script Info]\nScriptType: v4.00+\n\n[Events]\nFormat: Layer, End, Style, Start, Name, MarginL, MarginR, MarginV, Effect, Text\n"
                + "Dialogue: 0,0:00:02.00,Default,0:00:00.50,,0,0,0,,End, then Start\n"),
        ]
        for (name, text) in files { try scene.write(name, text) }
        let before = scene.snapshot()
        for (name, text) in files {
            let result = try run([scene.video, scene.path(name), "-o", scene.path("out-" + name)])
            #expect(result.status == 0 && result.stdout.contains("1 of 1 cues re-timed"), "\(name): \(result.output)")
            #expect(try String(contentsOfFile: scene.path("out-" + name), encoding: .utf8) == text, "\(name) changed")
        }
        scene.expectUntouched(since: before, outputs: files.map { "out-" + $0.0 })
    }

    /// Subtitles of an hour in over a 3 s clip: no copy without cues is written, and the error
    /// says every cue fell outside, by how much, and what to check.
    @Test func everyCueOutsideTheVideoIsRefusedWithNothingWritten() throws {
        let scene = try HostileMuxTests.Scene("sync-outside")
        defer { scene.remove() }
        let subs = try scene.write("late.srt", "1\n01:00:00,000 --> 01:00:02,000\nHello\n\n2\n01:00:03,000 --> 01:00:04,000\nAgain\n")
        let before = scene.snapshot()
        let result = try run([scene.video, subs])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.stderr.contains("all 2 cue(s) fall outside this copy") && result.stderr.contains("after it ends")
                && result.stderr.contains("nothing was written") && result.stderr.contains("Check that the subtitles belong to this video"), "\(result.stderr)")
        scene.expectUntouched(since: before)
    }

    /// A time no subtitle has fails its file with the line, in every command that reads it, and
    /// a folder's other files are re-timed all the same.
    @Test func timesBeyondAnyVideoFailTheirFileByLineInEveryCommand() throws {
        let scene = try HostileMuxTests.Scene("sync-huge")
        defer { scene.remove() }
        let huge = "<tt xmlns=\"http://www.w3.org/ns/ttml\">\n<body>\n<p begin=\"1e300h\" end=\"2e300h\">x</p></body></tt>\n"
        let bad = try scene.write("v.fr.ttml", huge)
        try scene.write("v.en.ttml", String(decoding: Self.ttmlDocuments[0].bytes, as: UTF8.self))
        let days = try scene.write("days.srt", "1\n00:00:00,000 --> 9999:00:00,000\nx\n")
        let before = scene.snapshot()
        for arguments in [["lint", bad], ["burn", scene.video, "--subs", bad, "-o", scene.path("b.mp4")], ["mux", scene.video, bad, "-o", scene.path("m.mkv")],
                          ["sync", scene.video, bad, "--model", "tiny.en"]] {
            let result = try MeasuredRun.checked(arguments, label: "hostile time", environment: HostileMuxTests.environment, cap: Self.cap)
            #expect(result.status == 1 && result.stderr.contains("line 3: cannot read the time \"1e300h\" of <p>"), "\(arguments[0]): \(result.output)")
        }
        let lint = try MeasuredRun.checked(["lint", days], label: "hostile time", environment: HostileMuxTests.environment, cap: Self.cap)
        #expect(lint.status == 1 && lint.stderr.contains("line 2: the time \"9999:00:00,000\" is more than 1000 hours in"), "\(lint.output)")
        scene.expectUntouched(since: before)
        let folder = try MeasuredRun.checked(["caption", scene.folder.path, "--sync", "--model", "tiny.en"], label: "hostile time",
                                             environment: HostileMuxTests.environment, cap: Self.cap)
        #expect(folder.status == 1 && folder.stdout.contains("v.fr.ttml: FAILED") && folder.stdout.contains("line 3: cannot read the time"), "\(folder.output)")
        #expect(folder.stdout.contains("1 subtitle file(s) re-timed, 0 skipped (current), 1 failed, for 1 of 1 file(s)"), "\(folder.stdout)")
        scene.expectUntouched(since: before, outputs: ["v.en.synced.ttml"])
    }

    /// A character reference to a control character (CSI, DEL, NEL) never reaches the terminal
    /// or a caption: dropped, and said.
    @Test func controlCharacterReferencesAreDroppedAndSaid() throws {
        let scene = try HostileMuxTests.Scene("sync-controls")
        defer { scene.remove() }
        let subs = try scene.write("c.ttml", "<tt xmlns=\"http://www.w3.org/ns/ttml\"><body>\n<p begin=\"0.5s\" end=\"2.5s\">"
            + "A line long enough to be too long: &#x9B;2J&#x9B;31m red &#127;&#x85;and on and on</p></body></tt>\n")
        let before = scene.snapshot()
        let lint = try MeasuredRun.checked(["lint", subs], label: "hostile controls", environment: HostileMuxTests.environment, cap: Self.cap)
        #expect(lint.stdout.contains("line-too-long") || lint.stdout.contains("characters; at most"), "\(lint.stdout)")
        #expect(lint.stdout.contains("4 control character(s) written as character references"), "\(lint.stdout)")
        let sync = try run([scene.video, subs, "-o", scene.path("out.ttml")])
        #expect(sync.status == 0 && sync.stderr.contains("4 control character(s)"), "\(sync.output)")
        scene.expectUntouched(since: before, outputs: ["out.ttml"])
    }

    /// 30,000 cues: read in one pass before any audio is heard (a count of lines from the start
    /// for each cue took minutes).
    @Test func thirtyThousandTTMLCuesAreReadInOnePass() throws {
        let scene = try HostileMuxTests.Scene("sync-ttml-many")
        defer { scene.remove() }
        let body = (0..<30_000).map { "<p xml:id=\"c\($0)\" end=\"\($0 * 5 + 2)s\" begin=\"\($0 * 5)s\">line number \($0) of many</p>" }.joined(separator: "\n")
        let subs = try scene.write("many.ttml", "<?xml version=\"1.0\"?>\n<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><div>\n<!-- c -->\n" + body + "\n</div></body></tt>\n")
        let before = scene.snapshot()
        let result = try run([scene.video, subs, "-o", scene.path("out.ttml"), "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["cues"] as? Int == 30_000 && (json["unplaced"] as? [Any])?.count == 29_999)
        scene.expectUntouched(since: before, outputs: ["out.ttml"])
    }

    private func stamp(_ ms: Int) -> String {
        String(format: "%02d:%02d:%02d,%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }
}
