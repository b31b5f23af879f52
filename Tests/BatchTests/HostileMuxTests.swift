import Foundation
import Testing

/// Hostile and awkward inputs to `capforge mux`, made at test time, through the real tool. Each
/// must end by itself (no signal, no hang) with a clear error naming the file, or succeed with
/// the warning that says what changed; under a stated memory cap; with nothing but its own
/// output written, and no escape sequence from a name reaching the terminal.
///
/// The caps are about twice what each run was measured to need (debug build, 2 cores: 53-59 MB
/// for a mux, 59 with 63 tracks, 67 with a 2 MB cue, 70 for the burn, 113 for 600,000 cues,
/// 137 for a 10 MB ASS file of 100,000 styles); each run prints its peak and time.
@Suite(.serialized) struct HostileMuxTests {
    static let environment = CLI().environment
    static let cap = 120.0

    /// A folder holding a copy of the 3 s clip as `v.mp4`, with what each case adds; what is
    /// in it before a run is compared with what is there after.
    struct Scene {
        let folder: URL
        var video: String { path("v.mp4") }

        init(_ name: String) throws {
            folder = try scratchFolder("hostile-mux-\(name)")
            try FileManager.default.copyItem(at: HostileInputTests.smallClip, to: folder.appendingPathComponent("v.mp4"))
        }

        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        @discardableResult
        func write(_ name: String, _ text: String) throws -> String {
            try Data(text.utf8).write(to: folder.appendingPathComponent(name))
            return path(name)
        }

        /// ffmpeg makes `name` from `arguments` (inputs first).
        @discardableResult
        func media(_ name: String, _ arguments: [String]) throws -> String {
            #expect(try runTool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments + [path(name)]) == 0, "ffmpeg could not make \(name)")
            return path(name)
        }

        /// Identity, size and modification time of every file, by path.
        func snapshot() -> [String: [Int]] {
            var files: [String: [Int]] = [:]
            for name in listing(folder) {
                var info = stat()
                guard lstat(path(name), &info) == 0 else { continue }
                files[name] = [Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
            }
            return files
        }

        /// Every file there before is as it was, and the only new ones are `outputs`.
        func expectUntouched(since before: [String: [Int]], outputs: [String] = []) {
            let after = snapshot()
            for (name, identity) in before { #expect(after[name] == identity, "\(name) was touched") }
            let made = Set(after.keys).subtracting(before.keys)
            #expect(made == Set(outputs), "files made: \(made.sorted()), expected \(outputs)")
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    func run(_ arguments: [String], cap: Double = HostileMuxTests.cap) throws -> MeasuredRun {
        try MeasuredRun.checked(["mux"] + arguments, label: "hostile mux", environment: Self.environment, cap: cap)
    }

    /// What ffprobe prints for `arguments` on `file`.
    static func probe(_ file: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error"] + arguments + [file]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Each video and audio stream's packet count, in order: a copy must have every packet
    /// (reading the input's end to check its duration once left the copy empty).
    static func mediaPackets(_ file: String) throws -> [String] {
        try probe(file, ["-count_packets", "-show_entries", "stream=codec_type,nb_read_packets", "-of", "csv=p=0"])
            .split(separator: "\n").filter { $0.hasPrefix("video") || $0.hasPrefix("audio") }.map(String.init)
    }

    static func expectMediaCopied(from input: String, to output: String) throws {
        let packets = try mediaPackets(input)
        let copied = try mediaPackets(output)
        #expect(!packets.isEmpty && copied == packets, "\(output) should hold every packet of \(input)")
    }

    /// The subtitle track of `file` as ffmpeg decodes it, written as SRT.
    static func subtitlesAsSRT(_ file: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-nostdin", "-v", "error", "-i", file, "-map", "0:s", "-f", "srt", "-"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let decoded = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: decoded, as: UTF8.self)
    }

    static func duration(_ file: String) throws -> Double {
        try #require(Double(probe(file, ["-show_entries", "format=duration", "-of", "csv=p=0"]).trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    static let oneCue = "1\n00:00:00,500 --> 00:00:02,000\nHello\n"

    // MARK: what reaches the terminal

    /// A name with an escape sequence becomes the track's title: printed escaped, and stored
    /// without its control characters, which is said. A --title with them is refused.
    @Test func escapeSequencesInNamesAndTitlesNeverReachTheTerminal() throws {
        let scene = try Scene("escape")
        defer { scene.remove() }
        let subs = try scene.write("a\u{1B}[31mred\u{1B}]0;owned\u{07}.srt", Self.oneCue)
        let before = scene.snapshot()
        let result = try run([scene.video, subs])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""a[31mred]0;owned""#))
        #expect(result.stderr.contains(#"capforge mux: warning: "#) && result.stderr.contains(#"a\u{1B}[31mred"#)
                && result.stderr.contains("control characters removed from the track title"))
        scene.expectUntouched(since: before, outputs: ["v.subtitled.mp4"])
        try Self.expectMediaCopied(from: scene.video, to: scene.path("v.subtitled.mp4"))
        let stored = try Self.probe(scene.path("v.subtitled.mp4"), ["-select_streams", "s", "-show_entries", "stream_tags=title,handler_name", "-of", "csv=p=0"])
        #expect(!stored.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" } && stored.contains("a[31mred"), "\(stored.debugDescription)")

        let titled = try run([scene.video, subs, "--title", "x\u{1B}[2Jy", "-o", scene.path("titled.mkv")])
        #expect(titled.status == 2 && titled.stderr.contains(#"x\u{1B}[2Jy"#) && titled.stderr.contains("without control characters"), "\(titled.stderr)")
        let language = try run([scene.video, subs, "--lang", "e\u{1B}[2Jn", "-o", scene.path("titled.mkv")])
        #expect(language.status == 2 && language.stderr.contains(#"e\u{1B}[2Jn"#), "\(language.stderr)")
        scene.expectUntouched(since: before, outputs: ["v.subtitled.mp4"])
    }

    /// A 100 KB title is no name for a menu: refused, and echoed only in part.
    @Test func aHundredKilobyteTitleIsRefused() throws {
        let scene = try Scene("title")
        defer { scene.remove() }
        let subs = try scene.write("s.srt", Self.oneCue)
        let before = scene.snapshot()
        let result = try run([scene.video, subs, "--title", String(repeating: "t", count: 100_000)])
        #expect(result.status == 2 && result.stderr.contains("at most 256 characters") && result.stderr.count < 1000, "\(result.stderr.prefix(500))")
        scene.expectUntouched(since: before)
    }

    // MARK: cues and tracks

    /// A cue ending at 240:00:00 made a 10-day file of a 3 s video: cues now end with the video,
    /// also where its header says otherwise (an MP4 whose duration counts a 10 s start offset
    /// in, a Matroska header patched to claim 48 hours).
    @Test func cuesPastTheEndAreCutOrLeftOutAndSaid() throws {
        let scene = try Scene("clamp")
        defer { scene.remove() }
        let subs = try scene.write("long.srt", Self.oneCue + "\n2\n00:00:02,500 --> 240:00:00,000\nForever\n\n3\n100:00:00,000 --> 101:00:00,000\nLate\n")
        try copyFixture("startoffset.mp4", to: scene.folder)
        let clean = try scene.media("clean.mkv", ["-i", scene.video, "-c", "copy"])
        var header = try Data(contentsOf: URL(fileURLWithPath: clean))
        // Segment Duration (ID 0x4489, an 8-byte float of milliseconds).
        let duration = try #require(header.firstRange(of: Data([0x44, 0x89, 0x88])))
        header.replaceSubrange(duration.upperBound..<duration.upperBound + 8, with: withUnsafeBytes(of: (48.0 * 3_600_000).bitPattern.bigEndian, Array.init))
        let liar = scene.path("liar.mkv")
        try header.write(to: URL(fileURLWithPath: liar))
        #expect(try Self.duration(liar) == 172_800)
        let offset = scene.path("startoffset.mp4")
        let offsetStart = try #require(Double(Self.probe(offset, ["-show_entries", "format=start_time", "-of", "csv=p=0"]).trimmingCharacters(in: .newlines)))
        let cases = [(scene.video, "long.mkv", try Self.duration(scene.video)), (scene.video, "long.mp4", try Self.duration(scene.video)),
                     (liar, "liar.subtitled.mkv", try Self.duration(clean)), (offset, "offset.subtitled.mp4", try Self.duration(offset) - offsetStart)]
        let before = scene.snapshot()
        for (video, out, length) in cases {
            let result = try run([video, subs, "-o", scene.path(out)])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("capforge mux: warning: \(subs): the video ends at \(String(format: "%.1f", (length * 10).rounded(.down) / 10))")
                    && result.stderr.contains("1 cue(s) ran past it and now end there; 1 cue(s) started after it and were left out"), "\(result.stderr)")
            let made = try Self.duration(scene.path(out))
            #expect(abs(made - length) < 0.1, "\(out) lasts \(made) s, the video \(length) s")
            try Self.expectMediaCopied(from: video, to: scene.path(out))
        }
        scene.expectUntouched(since: before, outputs: cases.map(\.1))
    }

    /// A video whose container says it lasts one frame, and one written as a stream without a
    /// duration (measured from its packets): cues are held to what there is.
    @Test func aOneFrameVideoAndAVideoWithoutADurationHoldTheirCuesToTheirLength() throws {
        let scene = try Scene("zero")
        defer { scene.remove() }
        let frame = try scene.media("frame.mp4", ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=25", "-frames:v", "1", "-c:v", "libx264"])
        let late = try scene.write("late.srt", Self.oneCue)
        let early = try scene.write("early.srt", "1\n00:00:00,000 --> 00:00:02,000\nAt once\n")
        // A Matroska file written to a pipe has no duration.
        let piped = scene.path("piped.mkv")
        #expect(runShell("/usr/bin/ffmpeg -nostdin -v error -f lavfi -i testsrc=size=64x48:rate=25:d=2 -c:v libx264 -f matroska - > '\(piped)'") == 0)
        #expect(try Self.probe(piped, ["-show_entries", "format=duration", "-of", "csv=p=0"]).contains("N/A"))
        let before = scene.snapshot()

        let nothing = try run([frame, late, "-o", scene.path("frame-late.mkv")])
        #expect(nothing.status == 1 && nothing.stderr.contains("nothing to add: \(late)") && nothing.stderr.contains("video ends at 0.04 s"), "\(nothing.stderr)")
        let cut = try run([frame, early, "-o", scene.path("frame.mkv")])
        #expect(cut.status == 0 && cut.stderr.contains("1 cue(s) ran past it"), "\(cut.stderr)")
        #expect(try Self.duration(scene.path("frame.mkv")) < 0.1)
        try Self.expectMediaCopied(from: frame, to: scene.path("frame.mkv"))
        let measured = try run([piped, scene.write("forever.srt", "1\n00:00:00,500 --> 240:00:00,000\nForever\n"), "-o", scene.path("piped.subtitled.mkv")])
        #expect(measured.status == 0 && measured.stderr.contains("the video ends at 2.00 s"), "\(measured.stderr)")
        #expect(abs(try Self.duration(scene.path("piped.subtitled.mkv")) - 2) < 0.1)
        try Self.expectMediaCopied(from: piped, to: scene.path("piped.subtitled.mkv"))
        scene.expectUntouched(since: before, outputs: ["frame.mkv", "forever.srt", "piped.subtitled.mkv"])
    }

    /// A cut-off MP4 (index first, so it opens) ends like a whole one in the demuxer: the copy
    /// holds what there is, and says the input looks truncated.
    @Test func aTruncatedVideoIsCopiedAsFarAsItGoesAndSaidSo() throws {
        let scene = try Scene("truncated")
        defer { scene.remove() }
        let whole = try scene.media("whole.mp4", ["-i", scene.video, "-c", "copy", "-movflags", "+faststart"])
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = scene.path("cut.mp4")
        try data.prefix(data.count * 2 / 3).write(to: URL(fileURLWithPath: cut))
        let subs = try scene.write("s.srt", Self.oneCue)
        let before = scene.snapshot()
        let result = try run([cut, subs, "-o", scene.path("cut.mkv")])
        #expect(result.status == 0 && result.stderr.contains("warning: input looks truncated: video ends at ") && result.stderr.contains(" of 3.0"),
                "\(result.stderr)")
        let packets = try Self.mediaPackets(scene.path("cut.mkv")), all = try Self.mediaPackets(whole)
        #expect(packets.count == 2 && packets != all, "\(packets)")
        scene.expectUntouched(since: before, outputs: ["cut.mkv"])
    }

    /// An empty SRT or an ASS without [Events] alone is refused, naming it; beside a file with
    /// cues it is left out with a warning naming it.
    @Test func emptySubtitleFilesAreRefusedOrLeftOutByName() throws {
        let scene = try Scene("empty")
        defer { scene.remove() }
        let empty = try scene.write("empty.srt", "")
        let noEvents = try scene.write("noevents.ass", "[Script Info]\nScriptType: v4.00+\nPlayResX: 384\nPlayResY: 288\n")
        let good = try scene.write("good.srt", Self.oneCue)
        let before = scene.snapshot()
        for file in [empty, noEvents] {
            let result = try run([scene.video, file, "-o", scene.path("out.mkv")])
            #expect(result.status == 1 && result.stderr.contains("nothing to add: \(file)"), "\(result.stderr)")
        }
        let both = try run([scene.video, empty, noEvents, "-o", scene.path("out.mkv")])
        #expect(both.status == 1 && both.stderr.contains("\(empty), \(noEvents) hold(s) no cues"), "\(both.stderr)")
        let mixed = try run([scene.video, empty, good, noEvents, "-o", scene.path("out.mkv")])
        #expect(mixed.status == 0 && mixed.stdout.contains("1 subtitle track(s) written"), "\(mixed.stderr)")
        #expect(mixed.stderr.contains("warning: \(empty) holds no cues") && mixed.stderr.contains("warning: \(noEvents) holds no cues"))
        scene.expectUntouched(since: before, outputs: ["out.mkv"])
    }

    /// Every error about a subtitle file names it, the second as much as the first.
    @Test func aMalformedSecondFileIsNamed() throws {
        let scene = try Scene("malformed")
        defer { scene.remove() }
        let good = try scene.write("good.srt", Self.oneCue)
        let bad = try scene.write("bad.srt", "garbage\nmore garbage\n")
        let badASS = try scene.write("bad.ass", "[Script Info]\n\n[Events]\nFormat: Layer, Start, End, Style, Text\nDialogue: 0,zero,0:00:01.00,Default,Hi\n")
        let binary = scene.path("binary.srt")
        try Data([0x31, 0x0A, 0, 0, 0xFF]).write(to: URL(fileURLWithPath: binary))
        let before = scene.snapshot()
        for file in [bad, badASS, binary] {
            let result = try run([scene.video, good, file, "-o", scene.path("out.mkv")])
            #expect(result.status == 1 && result.stderr.hasPrefix("capforge mux: \(file): "), "\(result.stderr)")
        }
        scene.expectUntouched(since: before)
    }

    /// Files a reader must not block on or read whole: a FIFO, a device, a 2 GB sparse file.
    @Test func aFIFOADeviceAndASparseGigabyteFileAreRefusedAtOnce() throws {
        let scene = try Scene("special")
        defer { scene.remove() }
        let fifo = scene.path("pipe.srt")
        #expect(mkfifo(fifo, 0o644) == 0)
        let sparse = scene.path("sparse.srt")
        #expect(truncate(try scene.write("sparse.srt", ""), 2_000_000_000) == 0)
        let before = scene.snapshot()
        for (file, said) in [(fifo, "is a FIFO"), ("/dev/zero", "is a character device"), (sparse, "is larger than 64 MB")] {
            let result = try run([scene.video, file, "-o", scene.path("out.mkv")])
            #expect(result.status == 1 && result.stderr.contains(file) && result.stderr.contains(said), "\(result.stderr)")
        }
        scene.expectUntouched(since: before)
    }

    /// 63 files (the most the command takes after the video) become 63 tracks; a 64th is a usage error.
    @Test func sixtyThreeSubtitleFilesBecomeSixtyThreeTracks() throws {
        let scene = try Scene("many")
        defer { scene.remove() }
        let files = try (1...64).map { try scene.write(String(format: "s%02d.srt", $0), Self.oneCue) }
        let before = scene.snapshot()
        let result = try run([scene.video] + files.prefix(63) + ["-o", scene.path("many.mkv")])
        #expect(result.status == 0 && result.stdout.contains("63 subtitle track(s) written"), "\(result.stderr)")
        let tracks = try Self.probe(scene.path("many.mkv"), ["-select_streams", "s", "-show_entries", "stream=index", "-of", "csv=p=0"])
        #expect(tracks.split(separator: "\n").count == 63)
        let tooMany = try run([scene.video] + files + ["-o", scene.path("more.mkv")])
        #expect(tooMany.status == 2 && tooMany.stderr.contains("unexpected argument"), "\(tooMany.stderr)")
        scene.expectUntouched(since: before, outputs: ["many.mkv"])
    }

    /// A cue of 2 MB of text: libavcodec's text encoders take time quadratic in an event's
    /// length (a minute for this one), so events are cut to what a screen holds, and said.
    @Test func aTwoMegabyteCueIsCutNotEncodedForAMinute() throws {
        let scene = try Scene("bigcue")
        defer { scene.remove() }
        let subs = try scene.write("big.srt", "1\n00:00:00,500 --> 00:00:02,000\n" + String(repeating: "word ", count: 400_000) + "\n")
        let before = scene.snapshot()
        for out in ["big.mkv", "big.mp4"] {
            let result = try run([scene.video, subs, "-o", scene.path(out)], cap: 140)
            #expect(result.status == 0 && result.stderr.contains("1 subtitle event(s) longer than 4000 characters were cut"), "\(result.stderr)")
        }
        scene.expectUntouched(since: before, outputs: ["big.mkv", "big.mp4"])
    }

    /// libavcodec's mov_text encoder splits its ASS header in time quadratic in its lines: a
    /// script of 100,000 styles never finished. MP4 gets the styles the events use, at most
    /// 1,000 of them (more is an error naming the file and .mkv).
    @Test func anASSFileWithAHundredThousandStylesFinishes() throws {
        let scene = try Scene("styles")
        defer { scene.remove() }
        func script(styles: Int, events: [(style: Int, start: Int)]) -> String {
            let format = ASSFormat.style
            let lines = (0..<styles).map { "Style: S\($0),Arial,20,&H00FFFFFF,&H000000FF,&H00000000,&H80000000,0,0,0,0,100,100,0,0,1,2,1,2,10,10,8,1" }
            let dialogue = events.map { String(format: "Dialogue: 0,0:00:00.%02d,0:00:00.%02d,S%d,,0,0,0,,Hi", $0.start, $0.start + 5, $0.style) }
            return (["[Script Info]", "ScriptType: v4.00+", "", "[V4+ Styles]", format] + lines
                    + ["", "[Events]", ASSFormat.event] + dialogue).joined(separator: "\n") + "\n"
        }
        let many = try scene.write("many.ass", script(styles: 100_000, events: [(5, 50)]))
        let used = try scene.write("used.ass", script(styles: 1_001, events: (0..<1_001).map { ($0, $0 % 90) }))
        let before = scene.snapshot()
        let result = try run([scene.video, many, "-o", scene.path("many.mp4")], cap: 280)
        #expect(result.status == 0, "\(result.stderr)")
        let refused = try run([scene.video, used, "-o", scene.path("used.mp4")])
        #expect(refused.status == 1 && refused.stderr.contains("\(used): its events use 1001 styles, more than an MP4 text track takes (1000); name a Matroska output (.mkv)"),
                "\(refused.stderr)")
        scene.expectUntouched(since: before, outputs: ["many.mp4"])
    }

    /// 600,000 cues (28 MB) in reverse time order, over an hour of video: read a cue at a time
    /// and sorted through a temporary file, each written as the video reaches it. Read whole they
    /// took 348 MB; now 113 MB, of which 45 MB is the Matroska muxer's index of the packets.
    @Test func sixHundredThousandCuesOutOfOrderAreMuxedInBoundedMemory() throws {
        let scene = try Scene("huge")
        defer { scene.remove() }
        let video = try scene.media("hour.mkv", ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=1:duration=3601", "-c:v", "libx264"])
        func cue(_ index: Int, number: Int) -> String {
            let start = index * 6
            let clock = { (ms: Int) in String(format: "%02d:%02d:%02d,%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000) }
            return "\(number)\n\(clock(start)) --> \(clock(start + 5))\nCue \(index)\n\n"
        }
        let subs = try scene.write("huge.srt", (0..<600_000).reversed().map { cue($0, number: 600_000 - $0) }.joined())
        let before = scene.snapshot()
        let result = try run([video, subs, "-o", scene.path("huge.mkv")], cap: 200)
        #expect(result.status == 0 && result.stdout.contains("1 subtitle track(s) written"), "\(result.output)")
        let decoded = try Self.subtitlesAsSRT(scene.path("huge.mkv"))
        // Every cue, in time order.
        #expect(decoded == (0..<600_000).map { cue($0, number: $0 + 1) }.joined(), "\(decoded.prefix(300))")
        scene.expectUntouched(since: before, outputs: ["huge.mkv"])
    }

    /// UTF-16 with a byte order mark is read as text, and the track holds the same words.
    @Test func aUTF16SubtitleFileWithABOMIsRead() throws {
        let scene = try Scene("utf16")
        defer { scene.remove() }
        let subs = scene.path("talk.fr.srt")
        let text = try #require("1\n00:00:00,500 --> 00:00:02,000\nÇa va, très bien ?\n".data(using: .utf16LittleEndian))
        try (Data([0xFF, 0xFE]) + text).write(to: URL(fileURLWithPath: subs))
        let before = scene.snapshot()
        let result = try run([scene.video, subs, "-o", scene.path("out.mkv")])
        #expect(result.status == 0 && result.stdout.contains("subrip, fre, \"French\""), "\(result.output)")
        #expect(try Self.subtitlesAsSRT(scene.path("out.mkv")).contains("Ça va, très bien ?"))
        scene.expectUntouched(since: before, outputs: ["out.mkv"])
    }

    /// A name's language part that is no code leaves the track untagged; --lang with no code is refused.
    @Test func languageTagsThatAreNoCode() throws {
        let scene = try Scene("language")
        defer { scene.remove() }
        let subs = try scene.write("talk.zz9.srt", Self.oneCue)
        let before = scene.snapshot()
        let untagged = try run([scene.video, subs, "-o", scene.path("out.mkv")])
        #expect(untagged.status == 0 && untagged.stdout.contains("subrip, no language, \"talk.zz9\""), "\(untagged.output)")
        let refused = try run([scene.video, subs, "--lang", "english!", "-o", scene.path("other.mkv")])
        #expect(refused.status == 2 && refused.stderr.contains("not a language code Capforge knows"), "\(refused.stderr)")
        scene.expectUntouched(since: before, outputs: ["out.mkv"])
    }

    // MARK: inputs that are not what they seem

    /// `mux sub.srt sub.srt`: libavformat opens an SRT as a file with one subtitle stream, which
    /// made a file with no video; it is refused.
    @Test func aSubtitleFileGivenAsTheVideoIsRefused() throws {
        let scene = try Scene("subvideo")
        defer { scene.remove() }
        let subs = try scene.write("sub.srt", Self.oneCue)
        let before = scene.snapshot()
        let result = try run([subs, subs, "-o", scene.path("o.mkv")])
        #expect(result.status == 1 && result.stderr.contains("\(subs) is a subtitle file, not a video: give the video first"), "\(result.stderr)")
        scene.expectUntouched(since: before)
    }

    /// Raw video: the ffmpeg CLI copies it into Matroska (under its FourCC), and so does mux;
    /// MP4 cannot hold it, and the error says what will.
    @Test func rawVideoIsCopiedIntoMatroskaAndRefusedForMP4() throws {
        let scene = try Scene("raw")
        defer { scene.remove() }
        let raw = try scene.media("raw.mkv", ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=5:duration=1", "-pix_fmt", "yuv420p", "-c:v", "rawvideo"])
        let subs = try scene.write("sub.srt", "1\n00:00:00,200 --> 00:00:00,800\nRaw\n")
        let before = scene.snapshot()
        let copied = try run([raw, subs])
        #expect(copied.status == 0 && copied.stdout.contains("raw.subtitled.mkv: 1 subtitle track(s) written"), "\(copied.output)")
        #expect(try Self.probe(scene.path("raw.subtitled.mkv"), ["-show_entries", "stream=codec_name", "-of", "csv=p=0"]) == "rawvideo\nsubrip\n")
        try Self.expectMediaCopied(from: raw, to: scene.path("raw.subtitled.mkv"))
        let refused = try run([raw, subs, "-o", scene.path("raw.mp4")])
        #expect(refused.status == 1 && refused.stderr.contains("\(raw): video stream 0 (rawvideo) cannot be copied into mp4 output; name a Matroska output (.mkv)"),
                "\(refused.stderr)")
        scene.expectUntouched(since: before, outputs: ["raw.subtitled.mkv"])
    }

    /// A QuickTime timecode track: MOV keeps it (the muxer writes it again from the video's tag),
    /// Matroska has none and says so, and burn-in (which re-encodes the video) says it is left out.
    @Test func aTimecodeTrackIsReportedAsItIsWritten() throws {
        let scene = try Scene("timecode")
        defer { scene.remove() }
        let mov = try scene.media("tc.mov", ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=25:duration=1", "-timecode", "01:00:00:00", "-c:v", "libx264"])
        let subs = try scene.write("sub.srt", "1\n00:00:00,200 --> 00:00:00,800\nTime\n")
        let before = scene.snapshot()
        func streams(_ name: String) throws -> String {
            try Self.probe(scene.path(name), ["-show_entries", "stream=codec_type,codec_tag_string:stream_tags=timecode", "-of", "csv=p=0"])
        }
        let kept = try run([mov, subs])
        #expect(kept.status == 0 && !kept.stderr.contains("left out"), "\(kept.stderr)")
        #expect(try streams("tc.subtitled.mov").contains("data,tmcd,01:00:00:00"))
        try Self.expectMediaCopied(from: mov, to: scene.path("tc.subtitled.mov"))
        let matroska = try run([mov, subs, "-o", scene.path("tc.mkv")])
        #expect(matroska.status == 0 && matroska.stderr.contains("warning: stream 1 (a QuickTime timecode track) was left out; the video keeps its start timecode as a tag"),
                "\(matroska.stderr)")
        #expect(try !streams("tc.mkv").contains("data") && streams("tc.mkv").contains("video,[0][0][0][0],01:00:00:00"))
        let burned = try MeasuredRun.run(["burn", mov, "--subs", subs, "-o", scene.path("tc.burned.mov")], environment: Self.environment)
        print(String(format: "hostile mux: burn exit %d, peak %.0f MB", burned.status, burned.peakMegabytes))
        #expect(burned.peakMegabytes < 140)
        #expect(burned.signal == nil && burned.status == 0 && burned.stderr.contains("warning: stream 1 (a QuickTime timecode track) was left out\n"), "\(burned.stderr)")
        #expect(try !streams("tc.burned.mov").contains("tmcd"))
        scene.expectUntouched(since: before, outputs: ["tc.subtitled.mov", "tc.mkv", "tc.burned.mov"])
    }

    // MARK: outputs

    /// The output may be no input (the video, a subtitle file), whatever --overwrite says, and
    /// no folder: each refused by name.
    @Test func theOutputIsNeverAnInputOrAFolder() throws {
        let scene = try Scene("output")
        defer { scene.remove() }
        let subs = try scene.write("sub.srt", Self.oneCue)
        let other = try scene.write("other.srt", Self.oneCue)
        try FileManager.default.createDirectory(atPath: scene.path("folder"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: scene.path("link.mkv"), withDestinationPath: "other.srt")
        let before = scene.snapshot()
        for output in [scene.video, subs, other, scene.path("link.mkv")] {
            let result = try run([scene.video, subs, other, "-o", output, "--overwrite"])
            #expect(result.status == 1 && result.stderr.contains("it is one of the input files"), "\(output): \(result.stderr)")
        }
        let folder = try run([scene.video, subs, "-o", scene.path("folder")])
        #expect(folder.status == 1 && folder.stderr.contains("refusing to write \(scene.path("folder")): it is a folder"), "\(folder.stderr)")
        scene.expectUntouched(since: before)
    }
}

/// The `Format:` lines of an ASS script's styles and events.
private enum ASSFormat {
    static let style = "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, "
        + "StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding"
    static let event = "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text"
}

/// Runs a shell command line (for a redirection), returning its exit status.
private func runShell(_ command: String) -> Int32 {
    (try? runTool("/bin/sh", ["-c", command])) ?? -1
}
