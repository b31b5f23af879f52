import CapforgeCore
import Foundation
import Burn
import Captions
import Media
import TestSupport
import Testing

/// Burns a real clip and checks pixels against the source decoded by the ffmpeg CLI.
@Suite struct BurnPixelTests {
    /// librivox.mp4 is 320x180 at 15 fps; frame i shows at i/15 s.
    static let rate = 15.0
    static let captionRows = 120..<180
    static let noticeRows = 0..<40

    @Test func captionAppearsOnlyDuringItsCueAndTheRestIsUntouched() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let clip = try work.ffmpeg(["-i", Fixtures.path("librivox.mp4"), "-t", "4", "-c", "copy"], output: "clip.mp4")
        let out = work.path("burned.mp4")
        // The script carries a Notice event, but `never` must keep it off the picture.
        let script = testScript(cues: [("0:00:01.00", "0:00:02.00", "Hello, captions")], noticeUntil: "0:00:04.00")
        let report = try BurnIn(input: clip, output: out, script: ASSDocument(parsing: script), styleSheet: try shippedStyleSheet(), options: BurnOptions(crf: 18, notice: .never), outputPolicy: OutputPolicy(ledgers: [])).run()
        #expect(!report.isTruncated)
        #expect((report.width, report.height) == (320, 180))

        let source = try LumaFrames(clip, width: 320, height: 180)
        let burned = try LumaFrames(out, width: 320, height: 180)
        #expect(burned.frames.count == source.frames.count)
        #expect(report.frames == burned.frames.count)
        var cleanPSNR: [Double] = []
        for index in 0..<min(source.frames.count, burned.frames.count) {
            let time = Double(index) / Self.rate
            let caption = PixelMath.psnr(source.region(index, rows: Self.captionRows), burned.region(index, rows: Self.captionRows))
            if time >= 1.0 && time < 2.0 {
                #expect(caption < 25, "frame \(index) at \(time) s should show the caption (PSNR \(caption))")
            } else if time < 0.9 || time > 2.1 {
                let whole = PixelMath.psnr(source.frames[index][...], burned.frames[index][...])
                cleanPSNR.append(whole)
                #expect(whole >= 40, "frame \(index) at \(time) s should match the source (PSNR \(whole))")
            }
            let notice = PixelMath.psnr(source.region(index, rows: Self.noticeRows), burned.region(index, rows: Self.noticeRows))
            // A small region's PSNR is noisier than the whole frame's; a drawn notice measures under 25 dB.
            #expect(notice >= 35, "notice drawn on frame \(index) although notice is never (PSNR \(notice))")
        }
        print("caption-free frames vs source: min PSNR \(cleanPSNR.min() ?? 0) dB over \(cleanPSNR.count) frames")
        #expect(try AudioPackets.payload(out) == AudioPackets.payload(clip))
    }

    @Test func noticeFromTheScriptCoversEveryFrameInMatroska() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let clip = try work.ffmpeg(["-i", Fixtures.path("librivox.mp4"), "-t", "3", "-c", "copy"], output: "clip.mp4")
        let out = work.path("burned.mkv")
        // The script's notice ends at 1 s; the burn stretches it over the whole video.
        let script = testScript(cues: [], noticeUntil: "0:00:01.00")
        var events: [BurnProgress] = []
        let report = try BurnIn(input: clip, output: out, script: ASSDocument(parsing: script), styleSheet: try shippedStyleSheet(), options: BurnOptions(crf: 18), outputPolicy: OutputPolicy(ledgers: [])).run { events.append($0) }
        #expect(events.count >= 2)
        #expect(events.map(\.fraction) == events.map(\.fraction).sorted())
        #expect(abs((events.last?.fraction ?? 0) - 1) < 0.05)
        #expect(events.last?.frames == report.frames)
        let source = try LumaFrames(clip, width: 320, height: 180)
        let burned = try LumaFrames(out, width: 320, height: 180)
        #expect(burned.frames.count == source.frames.count)
        #expect(report.frames == source.frames.count)
        for index in burned.frames.indices {
            let notice = PixelMath.psnr(source.region(index, rows: Self.noticeRows), burned.region(index, rows: Self.noticeRows))
            #expect(notice < 25, "notice missing on frame \(index) (PSNR \(notice))")
        }
        #expect(try AudioPackets.payload(out) == AudioPackets.payload(clip))
    }
}
