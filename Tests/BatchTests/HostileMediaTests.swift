import Foundation
import Testing

/// Media whose timing lies, made at test time, through the real tool: audio that starts hours
/// in, a header claiming 48 hours over 3 s, a million-cue subtitle file, implausible frame and
/// sample rates, timestamps at Int64's end, sparse packets with huge gaps. Each run must end by
/// itself without a signal, say clearly what is wrong, and stay under a memory cap that does not
/// grow with the lie.
///
/// The caps are about twice what each run was measured to need (debug build, 2 cores); each run
/// prints its peak and time.
@Suite(.serialized) struct HostileMediaTests {
    static let environment = CLI().environment
    static let speech = CLI.fixtures.appendingPathComponent("librivox-0880.mkv").path

    func run(_ arguments: [String]) throws -> MeasuredRun {
        try MeasuredRun.checked(arguments, label: "hostile media", environment: Self.environment)
    }

    private func ffmpeg(_ arguments: [String]) throws {
        try #require(try runTool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments) == 0, "ffmpeg \(arguments) failed")
    }

    /// 4 s of test picture with the 3 s reading (0880) whose audio starts `offset` seconds in.
    private func offsetClip(_ url: URL, offset: Int) throws {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=4", "-itsoffset", "\(offset)", "-i", Self.speech,
                    "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-c:a", "copy", url.path])
    }

    private func caption(_ file: URL, out: URL) throws -> MeasuredRun {
        try run(["caption", file.path, "--model", "tiny.en", "--out", out.path, "--formats", "srt"])
    }

    private func text(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }

    // MARK: audio that starts hours in

    /// Leading silence is a count, not samples: 10 hours of it cost no memory, and the words at
    /// the end of the file stay (no window hears past the file's end, so nothing there is a guess).
    @Test func audioTenHoursInCaptionsInTheMemoryOfAudioAtZero() throws {
        let folder = try scratchFolder("hostile-offset")
        defer { try? FileManager.default.removeItem(at: folder) }
        let atZero = folder.appendingPathComponent("zero.mkv"), late = folder.appendingPathComponent("late.mkv")
        try offsetClip(atZero, offset: 0)
        try offsetClip(late, offset: 36_000)
        let lateMP4 = folder.appendingPathComponent("late.mp4")  // an MP4 edit list rather than Matroska timestamps
        try ffmpeg(["-i", late.path, "-c", "copy", "-c:a", "aac", lateMP4.path])

        let base = try caption(atZero, out: folder.appendingPathComponent("out0"))
        #expect(base.status == 0, "\(base.output)")
        for file in [late, lateMP4] {
            let out = folder.appendingPathComponent("out-" + file.pathExtension)
            let result = try caption(file, out: out)
            #expect(result.status == 0, "\(result.output)")
            #expect(result.peakMegabytes < 450)
            #expect(result.peakMegabytes < base.peakMegabytes + 40, "10 h of leading silence took \(result.peakMegabytes) MB against \(base.peakMegabytes) MB")
            #expect(!result.output.contains("truncated") && !result.output.contains("guessed"), "\(result.output)")
            #expect(result.stdout.contains("10:00:0"), "the summary gives the file's length: \(result.stdout)")
            let srt = text(out.appendingPathComponent(file.deletingPathExtension().lastPathComponent + ".en.srt"))
            #expect(srt.hasPrefix("1\n10:00:00,") && srt.contains("young man"), "\(srt)")
        }
        let probe = try run(["probe", late.path])
        #expect(probe.status == 0 && probe.stdout.contains("duration: 36003.") && !probe.output.contains("warning"), "\(probe.output)")
    }

    /// `extract` writes the offset as zeros, a block at a time: an hour of them (230 MB) in flat memory.
    @Test func extractWritesAnHourOfLeadingSilenceInFlatMemory() throws {
        let folder = try scratchFolder("hostile-extract-offset")
        defer { try? FileManager.default.removeItem(at: folder) }
        let late = folder.appendingPathComponent("late.mkv"), raw = folder.appendingPathComponent("late.f32")
        try offsetClip(late, offset: 3600)
        let result = try run(["extract", late.path, "-o", raw.path])
        #expect(result.status == 0 && !result.output.contains("warning"), "\(result.output)")
        #expect(result.peakMegabytes < 130)
        let bytes = (try FileManager.default.attributesOfItem(atPath: raw.path)[.size] as? Int) ?? 0
        #expect(abs(Double(bytes) / 4 / 16_000 - 3603.06) < 0.1, "\(bytes) bytes")
    }

    // MARK: a header that lies about the duration

    /// A Matroska Duration patched to 48 hours over 3 s of media: said by every command, and the
    /// measured length used for the summary and the estimate.
    @Test func aHeaderClaimingFortyEightHoursOverThreeSecondsIsSaidAndNotBelieved() throws {
        let folder = try scratchFolder("hostile-duration")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clean = folder.appendingPathComponent("clean.mkv"), lying = folder.appendingPathComponent("lying.mkv")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=3", "-i", Self.speech, "-map", "0:v", "-map", "1:a",
                    "-c:v", "libx264", "-c:a", "copy", "-shortest", clean.path])
        try Self.patchMatroskaDuration(of: clean, to: 48 * 3600 * 1000, into: lying)

        let probe = try run(["probe", lying.path])
        #expect(probe.status == 0 && probe.stdout.contains("duration: 3.") && probe.stdout.contains("claims a duration of 48:00:00")
                && probe.stdout.contains("the header's duration is wrong"), "\(probe.output)")
        let extract = try run(["extract", lying.path, "-o", folder.appendingPathComponent("a.f32").path])
        #expect(extract.status == 0 && extract.stderr.contains("the header's duration is wrong") && !extract.stderr.contains("truncated"), "\(extract.output)")
        let dry = try run(["caption", lying.path, "--model", "tiny.en", "--dry-run"])
        #expect(dry.status == 0 && dry.stdout.contains("lying.mkv: 0:03,") && dry.stdout.contains("the estimate is a guess")
                && !dry.stdout.contains("48:00:00,"), "\(dry.output)")
        let captioned = try caption(lying, out: folder.appendingPathComponent("out"))
        #expect(captioned.status == 0 && captioned.output.contains("0:03 of media") && !captioned.output.contains("48:00:00 of media")
                && captioned.output.contains("the header's duration is wrong"), "\(captioned.output)")
        for result in [probe, extract, dry, captioned] { #expect(result.peakMegabytes < 450) }
    }

    /// Overwrites the float of the Segment Info's Duration element (ID 0x4489), in the file's
    /// timestamp units (milliseconds at Matroska's default scale).
    static func patchMatroskaDuration(of source: URL, to value: Double, into destination: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: source))
        let id: [UInt8] = [0x44, 0x89]
        let at = try #require((0..<bytes.count - 11).first { bytes[$0] == id[0] && bytes[$0 + 1] == id[1] && [0x84, 0x88].contains(bytes[$0 + 2]) })
        if bytes[at + 2] == 0x88 {
            withUnsafeBytes(of: value.bitPattern.bigEndian) { bytes.replaceSubrange(at + 3..<at + 11, with: $0) }
        } else {
            withUnsafeBytes(of: Float(value).bitPattern.bigEndian) { bytes.replaceSubrange(at + 3..<at + 7, with: $0) }
        }
        try Data(bytes).write(to: destination)
    }

    // MARK: lint of a huge file

    /// 1.5 M cues (60 MB) checked cue by cue: the first violations listed, every one counted. A
    /// WebVTT file as well (a 13 MB one was read whole: 185 MB), its NOTE blocks passed over; an
    /// ASS script (88 MB: it was read whole, 613 MB for 1 M events), its events in time order, so
    /// the early cue is an overlap; an SRT in UTF-16 (135 MB: it was read whole, 412 MB for 0.7 M cues).
    @Test(arguments: ["srt", "vtt", "ass", "utf16.srt"]) func lintOfAMillionAndAHalfCuesStreams(format: String) throws {
        let folder = try scratchFolder("hostile-lint")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("huge.en.\(format)")
        try Self.writeCues(1_500_000, to: file)
        let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        #expect(size > 55_000_000, "\(size) bytes")
        let result = try run(["lint", file.path, "--fps", "25"])
        try? FileManager.default.removeItem(at: file)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.peakMegabytes < 130)
        // Every gap is unchained but the two beside the early cue, which is out of order (or, sorted, overlapped).
        let early = format == "ass" ? "overlap 1, unchained-gap 1499997" : "unchained-gap 1499997, out-of-order 1"
        #expect(result.stdout.contains("1500000 cues") && result.stdout.contains("1498998 more violations not listed")
                && result.stdout.contains("1499998 violations (\(early))"), "\(result.stdout.suffix(2000))")
    }

    /// Cues of one word, 1.5 s each, 100 ms apart (an unchained gap at 25 fps), written a block at
    /// a time; cue 1000 starts too early (out of order). As the file's extension says: WebVTT with
    /// a header and a NOTE every 1000 cues, ASS events, or (`.utf16.srt`) SRT in UTF-16LE.
    static func writeCues(_ count: Int, to url: URL) throws {
        let format = url.pathExtension == "srt" ? url.deletingPathExtension().pathExtension : url.pathExtension
        FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        func clock(_ ms: Int) -> String {
            format == "ass" ? String(format: "%d:%02d:%02d.%02d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000 / 10)
                : String(format: "%02d:%02d:%02d\(format == "vtt" ? "." : ",")%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
        }
        var block = ["vtt": "WEBVTT\n\n", "ass": "[Script Info]\nScriptType: v4.00+\n\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"][format] ?? ""
        if format == "utf16" { try handle.write(contentsOf: Data([0xFF, 0xFE])) }
        for index in 1...count {
            let start = index == 1000 ? 0 : (index - 1) * 1600
            if format == "vtt" && index % 1000 == 0 { block += "NOTE a note\nover two lines\n\n" }
            block += format == "ass" ? "Dialogue: 0,\(clock(start)),\(clock(start + 1500)),Default,,0,0,0,,Word\n"
                : "\(index)\n\(clock(start)) --> \(clock(start + 1500))\nWord\n\n"
            if block.utf8.count > 1 << 20 || index == count {
                try handle.write(contentsOf: format == "utf16" ? try #require(block.data(using: .utf16LittleEndian)) : Data(block.utf8))
                block = ""
            }
        }
    }

    // MARK: frame and sample rates

    @Test func anImplausibleFrameRateIsSaidWithTheRateUsedInstead() throws {
        let folder = try scratchFolder("hostile-fps")
        defer { try? FileManager.default.removeItem(at: folder) }
        let video = folder.appendingPathComponent("slow.mkv"), srt = folder.appendingPathComponent("slow.en.srt")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=1:duration=2", "-r", "1/1000", "-c:v", "libx264", video.path])
        try "1\n00:00:00,500 --> 00:00:02,000\nHello.\n".write(to: srt, atomically: true, encoding: .utf8)
        let result = try run(["lint", srt.path, "--video", video.path])
        #expect(result.status == 0 && result.stdout.contains("at 25 fps")
                && result.stdout.contains("warning: the video claims 0.001 frames per second") && result.stdout.contains("judged at 25 fps"), "\(result.output)")
        #expect(result.peakMegabytes < 130)
    }

    /// A slideshow's 1 fps is a real rate, but no measure of a caption gap: a two-frame gap must
    /// not become two seconds. The video's rate falls back, said; `--fps 1` is refused.
    @Test func aSlideshowsFrameRateDoesNotMakeFrameGapsSeconds() throws {
        let folder = try scratchFolder("hostile-slides")
        defer { try? FileManager.default.removeItem(at: folder) }
        let video = folder.appendingPathComponent("slides.mp4"), srt = folder.appendingPathComponent("slides.en.srt")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=1:duration=4", "-c:v", "libx264", video.path])
        // 80 ms apart: two frames at 25 fps.
        try "1\n00:00:00,500 --> 00:00:01,500\nOne.\n\n2\n00:00:01,580 --> 00:00:03,000\nTwo.\n".write(to: srt, atomically: true, encoding: .utf8)
        let result = try run(["lint", srt.path, "--video", video.path])
        #expect(result.status == 0 && result.stdout.contains("warning: the video claims 1 frames per second") && result.stdout.contains("no violations"), "\(result.output)")
        let refused = try run(["lint", srt.path, "--fps", "1"])
        #expect(refused.status == 2 && refused.stderr.contains("a number from 10 to 120"), "\(refused.output)")
    }

    /// 1 Hz would make days of audio of a small file: refused with the reason. 768 kHz is real.
    @Test func sampleRatesAtTheEdges() throws {
        let folder = try scratchFolder("hostile-rates")
        defer { try? FileManager.default.removeItem(at: folder) }
        let fast = folder.appendingPathComponent("fast.wav"), slow = folder.appendingPathComponent("slow.wav")
        try ffmpeg(["-f", "lavfi", "-i", "sine=r=768000:d=2", "-c:a", "pcm_s16le", fast.path])
        var header = [UInt8](try Data(contentsOf: fast))
        let format = try #require((0..<64).first { header[$0..<$0 + 4].elementsEqual("fmt ".utf8) })
        header.replaceSubrange(format + 12..<format + 20, with: [1, 0, 0, 0, 2, 0, 0, 0])  // 1 Hz, 2 bytes a second
        try Data(header).write(to: slow)
        let extracted = try run(["extract", fast.path, "-o", folder.appendingPathComponent("fast.f32").path])
        #expect(extracted.status == 0 && extracted.stderr.contains("32000 samples (2.000 s)"), "\(extracted.output)")
        #expect(extracted.peakMegabytes < 130)
        let refused = try run(["caption", slow.path, "--model", "tiny.en", "--out", folder.appendingPathComponent("out").path])
        #expect(refused.status == 1 && refused.output.contains("claims a sample rate of 1 Hz"), "\(refused.output)")
        #expect(refused.peakMegabytes < 450)
        let dry = try run(["caption", slow.path, "--model", "tiny.en", "--dry-run"])
        #expect(dry.status == 0 && dry.stdout.contains("refused: its audio claims 1 Hz, about 0.0 s"), "\(dry.output)")
    }

    // MARK: timestamps

    /// One video frame over 3 s of audio: a short stream in a whole file, not a truncated one.
    @Test func aOneFrameVideoIsNotTruncated() throws {
        let folder = try scratchFolder("hostile-one-frame")
        defer { try? FileManager.default.removeItem(at: folder) }
        let video = folder.appendingPathComponent("one.mkv"), srt = folder.appendingPathComponent("one.srt")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=0.04", "-i", Self.speech, "-map", "0:v", "-map", "1:a",
                    "-c:v", "libx264", "-c:a", "copy", video.path])
        try "1\n00:00:00,000 --> 00:00:01,000\nHi\n".write(to: srt, atomically: true, encoding: .utf8)
        let burned = try run(["burn", video.path, "--subs", srt.path, "-o", folder.appendingPathComponent("b.mp4").path])
        #expect(burned.status == 0 && burned.stdout.contains("1 frames") && !burned.output.contains("truncated"), "\(burned.output)")
        let extracted = try run(["extract", video.path, "-o", folder.appendingPathComponent("a.f32").path])
        #expect(extracted.status == 0 && !extracted.output.contains("truncated"), "\(extracted.output)")
        for result in [burned, extracted] { #expect(result.peakMegabytes < 150) }
    }

    /// A start offset of 9.2e12 s (Int64's end in microseconds) and a negative start: the time
    /// origin is the file's start either way, and no arithmetic overflows.
    @Test func startTimesAtTheEdgesOfTheTimeline() throws {
        let folder = try scratchFolder("hostile-start")
        defer { try? FileManager.default.removeItem(at: folder) }
        let far = folder.appendingPathComponent("far.mkv"), negative = folder.appendingPathComponent("negative.ts")
        try ffmpeg(["-i", Self.speech, "-c", "copy", "-output_ts_offset", "9200000000000", far.path])
        try ffmpeg(["-i", Self.speech, "-c:a", "mp2", "-output_ts_offset", "-2", "-avoid_negative_ts", "disabled", "-f", "mpegts", negative.path])
        for file in [far, negative] {
            let probe = try run(["probe", file.path])
            #expect(probe.status == 0 && probe.stdout.contains("duration: 3."), "\(probe.output)")
            let out = folder.appendingPathComponent("out-" + file.pathExtension)
            let result = try caption(file, out: out)
            #expect(result.status == 0 && !result.output.contains("truncated"), "\(result.output)")
            #expect(result.peakMegabytes < 450)
            let srt = text(out.appendingPathComponent(file.deletingPathExtension().lastPathComponent + ".en.srt"))
            #expect(srt.hasPrefix("1\n00:00:0") && srt.contains("young man"), "\(srt)")
        }
    }

    /// 10 000 packets of 10 ms, 61 s apart (a week of timeline): the gaps are holes in the spool
    /// and skipped by the speech detector; past a week the timestamps are damage, and said so.
    @Test func tenThousandTinyPacketsWithHugeGapsStayBounded() throws {
        let folder = try scratchFolder("hostile-sparse")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sparse = folder.appendingPathComponent("sparse.mkv")
        try ffmpeg(["-f", "lavfi", "-i", "sine=f=440:d=100:r=16000", "-af", "asetnsamples=n=160,asetpts=PTS+floor(N/160)*61/TB",
                    "-c:a", "pcm_s16le", sparse.path])
        let result = try caption(sparse, out: folder.appendingPathComponent("out"))
        #expect(result.status == 0, "\(result.output)")
        #expect(result.peakMegabytes < 140)
        #expect(result.output.contains("gap(s) in the audio timeline filled with") && result.output.contains("jumped more than 168 hours"), "\(result.output)")
        #expect(!result.output.contains("truncated"), "\(result.output)")
    }
}
