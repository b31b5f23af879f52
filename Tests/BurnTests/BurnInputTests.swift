import CapforgeCore
import Foundation
import Burn
import Captions
import Media
import TestSupport
import Testing

/// Real-world inputs the prototype found broken: rotation, odd sizes, 10-bit and 4:2:2, PCM in
/// .mov, truncation, audio-only files, cancellation.
@Suite struct BurnInputTests {
    static let cue = testScript(cues: [("0:00:01.00", "0:00:02.00", "Caption")])

    /// Checks that frames in the cue differ from `source` in the bottom rows and the rest match.
    func expectCaptionOnlyInCue(source: LumaFrames, burned: LumaFrames, rate: Double, topRowsExcluded: Int = 0) {
        #expect(burned.frames.count == source.frames.count)
        let bottom = (burned.height * 2 / 3)..<burned.height
        for index in 0..<min(source.frames.count, burned.frames.count) {
            let time = Double(index) / rate
            if time >= 1.0 && time < 2.0 {
                let caption = PixelMath.psnr(source.region(index, rows: bottom), burned.region(index, rows: bottom))
                #expect(caption < 25, "frame \(index) should show the caption (PSNR \(caption))")
            } else if time < 0.9 || time > 2.1 {
                let rows = topRowsExcluded..<burned.height
                let rest = PixelMath.psnr(source.region(index, rows: rows), burned.region(index, rows: rows))
                #expect(rest >= 40, "frame \(index) should match the source (PSNR \(rest))")
            }
        }
    }

    @Test func rotatedVideoComesOutUprightWithUprightCaptions() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        // no-audio.mp4 is stored 320x180 and shown as 180x320 (display matrix).
        let out = work.path("rotated.mp4")
        let report = try BurnIn(input: Fixtures.path("no-audio.mp4"), output: out, script: ASSDocument(parsing: Self.cue), styleSheet: try shippedStyleSheet(),
                                options: BurnOptions(crf: 18, notice: .always, noticeText: "Basic"), outputPolicy: OutputPolicy(ledgers: [])).run()
        #expect((report.width, report.height) == (180, 320))
        let source = try LumaFrames(Fixtures.path("no-audio.mp4"), width: 180, height: 320)
        let burned = try LumaFrames(out, width: 180, height: 320)
        expectCaptionOnlyInCue(source: source, burned: burned, rate: 30000 / 1001, topRowsExcluded: 80)
        // `always` added a notice to a script without one: drawn at the top of every frame.
        for index in burned.frames.indices {
            #expect(PixelMath.psnr(source.region(index, rows: 0..<30), burned.region(index, rows: 0..<30)) < 25, "notice missing on frame \(index)")
        }
    }

    @Test func oddSizeIsCroppedToEvenAndEncodedAs420() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        // libx264 cannot store odd 4:2:0, so the CLI makes 4:4:4 for such a size.
        let input = try work.testClip("odd.mp4", size: "161x91", encoder: ["-c:v", "libx264", "-pix_fmt", "yuv444p", "-crf", "12"])
        let out = work.path("even.mp4")
        let report = try BurnIn(input: input, output: out, script: ASSDocument(parsing: Self.cue), styleSheet: try shippedStyleSheet(), options: BurnOptions(crf: 18), outputPolicy: OutputPolicy(ledgers: [])).run()
        #expect((report.width, report.height) == (160, 90))
        #expect(try streamField(out, "pix_fmt") == "yuv420p")
        let source = try LumaFrames(input, width: 160, height: 90, filter: "crop=160:90:0:0")
        let burned = try LumaFrames(out, width: 160, height: 90)
        expectCaptionOnlyInCue(source: source, burned: burned, rate: 10)
    }

    @Test(arguments: [("yuv420p10le", "10-bit"), ("yuv422p", "4:2:2")])
    func highBitDepthAndChromaBecome8Bit420(format: String, label: String) throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let input = try work.testClip("\(format).mkv", size: "320x180", encoder: ["-c:v", "libx264", "-pix_fmt", format, "-crf", "12"])
        #expect(try streamField(input, "pix_fmt") == format)
        let out = work.path("out.mp4")
        _ = try BurnIn(input: input, output: out, script: ASSDocument(parsing: Self.cue), styleSheet: try shippedStyleSheet(), options: BurnOptions(crf: 18), outputPolicy: OutputPolicy(ledgers: [])).run()
        #expect(try streamField(out, "pix_fmt") == "yuv420p", "\(label) input")
        let source = try LumaFrames(input, width: 320, height: 180)
        let burned = try LumaFrames(out, width: 320, height: 180)
        expectCaptionOnlyInCue(source: source, burned: burned, rate: 10)
    }

    @Test func pcmAudioFromMovIsReencodedForMP4AndCopiedIntoMatroska() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let input = Fixtures.path("pcm-audio.mov")
        let mp4 = work.path("pcm.mp4")
        let report = try BurnIn(input: input, output: mp4, script: ASSDocument(parsing: Self.cue), styleSheet: try shippedStyleSheet(), outputPolicy: OutputPolicy(ledgers: [])).run()
        #expect(report.warnings.contains(.audioReencoded(index: 1, from: "pcm_s16le")))
        #expect(try streamField(mp4, "codec_name", stream: "a:0") == "aac")
        let audioSeconds = Double(try streamField(mp4, "duration", stream: "a:0")) ?? 0
        #expect(abs(audioSeconds - 5.32) < 0.1, "AAC audio lasts \(audioSeconds) s")
        // AAC is lossy: the decoded signal must still follow the source closely.
        let original = try Tool.ffmpegReference(input, stream: 1)
        let reencoded = try Tool.ffmpegReference(mp4, stream: 1)
        let n = min(original.count, reencoded.count)
        #expect(n > 80_000)
        let signal = original[0..<n].reduce(0) { $0 + Double($1 * $1) }
        let noise = zip(original[0..<n], reencoded[0..<n]).reduce(0) { $0 + Double(($1.0 - $1.1) * ($1.0 - $1.1)) }
        let snr = 10 * log10(signal / max(noise, 1e-12))
        #expect(snr > 15, "AAC vs PCM SNR \(snr) dB")

        let mkv = work.path("pcm.mkv")
        let copied = try BurnIn(input: input, output: mkv, script: ASSDocument(parsing: Self.cue), styleSheet: try shippedStyleSheet(), outputPolicy: OutputPolicy(ledgers: [])).run()
        #expect(!copied.warnings.contains { if case .audioReencoded = $0 { return true } else { return false } })
        #expect(try AudioPackets.payload(mkv) == AudioPackets.payload(input))
    }

    /// FFmpeg 5.1 lists FLAC as fit for MP4 but refuses to write it there: it must become AAC.
    @Test func flacAudioBecomesAACInMP4() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let mp4 = work.path("flac.mp4")
        let report = try BurnIn(input: Fixtures.path("librivox-0870.mkv"), output: mp4, script: ASSDocument(parsing: Self.cue), styleSheet: try shippedStyleSheet(), outputPolicy: OutputPolicy(ledgers: [])).run()
        #expect(report.warnings.contains(.audioReencoded(index: 1, from: "flac")))
        #expect(try streamField(mp4, "codec_name", stream: "a:0") == "aac")
    }

    @Test func variableFrameRateKeepsEveryFramesTime() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        // 25 frames 40 ms apart, then 50 frames 70 ms apart.
        let input = try work.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=160x90:r=25:d=3,settb=1/1000,setpts='if(lt(N,25),N*40,1000+(N-25)*70)'",
            "-fps_mode", "passthrough", "-enc_time_base:v", "1:1000", "-c:v", "libx264", "-preset", "ultrafast"], output: "vfr.mkv")
        let out = work.path("vfr-out.mkv")
        let report = try BurnIn(input: input, output: out, script: ASSDocument(parsing: Self.cue), styleSheet: try shippedStyleSheet(), outputPolicy: OutputPolicy(ledgers: [])).run()
        let times = try frameTimes(input)
        #expect(times.count == 75)
        #expect(try frameTimes(out) == times)
        #expect(abs(report.duration - 4.44) < 0.02)
    }

    @Test func truncatedInputWritesWhatExistsAndSaysSo() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let out = work.path("truncated.mp4")
        let report = try BurnIn(input: Fixtures.path("bad/truncated-faststart.mp4"), output: out, script: ASSDocument(parsing: Self.cue), styleSheet: try shippedStyleSheet(), outputPolicy: OutputPolicy(ledgers: [])).run()
        #expect(report.isTruncated)
        #expect(report.frames > 0)
        #expect(report.duration < 25)
        let written = Double(try streamField(out, "duration")) ?? 0
        #expect(abs(written - report.duration) < 0.5)
    }

    @Test func audioOnlyInputIsAClearError() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let audio = try work.ffmpeg(["-i", Fixtures.path("librivox.mp4"), "-t", "2", "-vn", "-c", "copy"], output: "audio.m4a")
        let out = work.path("never.mp4")
        #expect(throws: BurnError.noVideo(path: audio)) {
            try BurnIn(input: audio, output: out, script: ASSDocument(parsing: Self.cue), styleSheet: try shippedStyleSheet(), outputPolicy: OutputPolicy(ledgers: [])).run()
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func cancellationLeavesNoFileBehind() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let out = work.path("cancelled.mp4")
        let cancellation = Cancellation()
        var calls = 0
        #expect(throws: Cancelled()) {
            try BurnIn(input: Fixtures.path("librivox.mp4"), output: out, script: ASSDocument(parsing: Self.cue), styleSheet: try shippedStyleSheet(), outputPolicy: OutputPolicy(ledgers: [])).run(cancellation: cancellation) { _ in
                calls += 1
                cancellation.cancel()
            }
        }
        #expect(calls >= 1, "cancelled mid-stream, after a progress report")
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.directory.path).isEmpty)
    }

    private func frameTimes(_ path: String) throws -> [String] {
        let out = try Tool.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path])
        return String(decoding: out, as: UTF8.self).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ", ")) }
    }

    private func streamField(_ path: String, _ field: String, stream: String = "v:0") throws -> String {
        let out = try Tool.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "stream=\(field)", "-of", "csv=p=0", path])
        return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
