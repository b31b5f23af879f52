import Foundation
import Media
import Testing

@Suite struct ProbeTests {
    @Test func dualLanguageTracks() throws {
        let probe = try MediaProbe(path: Fixtures.path("dual-language.mkv"))
        #expect(probe.container == "matroska,webm")
        #expect(probe.audioStreams.map(\.index) == [1, 2])
        #expect(probe.audioStreams.map(\.languageTag) == ["eng", "spa"])
        #expect(probe.audioStreams.map(\.language?.code) == ["en", "es"])
        #expect(probe.audioStreams.map(\.isDefault) == [true, false])
        #expect(probe.audioStreams.allSatisfy { $0.title != nil })
        #expect(probe.audioStreams[1].codec == "opus")
        #expect(probe.video?.width == 160)
    }

    @Test func startOffsetIsTheTimeOrigin() throws {
        let probe = try MediaProbe(path: Fixtures.path("startoffset.mp4"))
        #expect(probe.startTime > 9.9 && probe.startTime < 10.1)
    }

    @Test func surroundAndRotation() throws {
        #expect(try MediaProbe(path: Fixtures.path("surround.mov")).audioStreams.first?.channels == 6)
        let rotated = try MediaProbe(path: Fixtures.path("no-audio.mp4"))
        #expect(rotated.audioStreams.isEmpty)
        #expect(rotated.video?.rotation == 270)
        // ffprobe's number is the other way round (90 here): the description says both and which way.
        let theirs = String(decoding: try Tool.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data=rotation",
                                                                   "-of", "csv=p=0", Fixtures.path("no-audio.mp4")]), as: UTF8.self)
        #expect(theirs.trimmingCharacters(in: .whitespacesAndNewlines) == "90")
        #expect(rotated.video?.rotationDescription == "rotation 270° clockwise to display, shown 180x320 (the display matrix's 90° counter-clockwise: ffprobe says rotation=90)")
        let rate = String(decoding: try Tool.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=avg_frame_rate",
                                                                 "-of", "csv=p=0", Fixtures.path("librivox.mp4")]), as: UTF8.self)
        let parts = rate.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "/").compactMap { Double($0) }
        #expect(try MediaProbe(path: Fixtures.path("librivox.mp4")).video?.frameRate == parts[0] / parts[1])
    }
}
