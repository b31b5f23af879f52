import Foundation
import Media
import TestSupport
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

    /// Captions end where the media does: the later of the picture and the sound, so a still
    /// image over speech (one frame, then 3 s of audio) does not squeeze every cue into 40 ms.
    @Test func theMediaEndsWithTheLongerOfPictureAndSound() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-media-end-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let still = folder.appendingPathComponent("still.mp4").path
        _ = try Tool.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=blue:s=160x120:r=25:d=0.04",
                                             "-f", "lavfi", "-i", "sine=d=3", "-c:v", "libx264", "-c:a", "aac", still])
        let probe = try MediaProbe(path: still)
        #expect((probe.video?.end ?? 0) < 0.1)
        let end = try #require(probe.mediaEnd(.automatic))
        #expect(end > 2.9 && end < 3.1, "\(end)")
        // The picture ends later than the sound in japanese.mp4 (12.917 s against 12.884 s).
        let japanese = try MediaProbe(path: Fixtures.path("japanese.mp4"))
        #expect(japanese.mediaEnd(.automatic) == japanese.video?.end)
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
