import Foundation
import TestSupport
import Testing

@testable import Media

/// Shot changes found as ffmpeg's own `scdet` filter finds them, on the same frames.
@Suite struct ShotChangeTests {
    /// ffmpeg's `scdet` at its default threshold: the times it marks.
    static func scdet(_ path: String) throws -> [Double] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-hide_banner", "-nostdin", "-i", path, "-vf", "scdet=threshold=10", "-an", "-f", "null", "-"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.matches(of: /lavfi\.scd\.time: ([0-9.]+)/).compactMap { Double($0.output.1) }
    }

    /// Cuts between moving test patterns and noise, and a fade (no cut), in H.264 and VP9.
    @Test(arguments: ["mp4", "webm"]) func theChangesAreScdets(container: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-shots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cuts.\(container)").path
        let codec = container == "mp4" ? ["-c:v", "libx264", "-pix_fmt", "yuv420p"] : ["-c:v", "libvpx-vp9", "-b:v", "300k"]
        try Tool.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin",
            "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=2",
            "-f", "lavfi", "-i", "smptehdbars=s=320x180:r=25:d=1.6",
            "-f", "lavfi", "-i", "mandelbrot=s=320x180:r=25,trim=duration=2.4",
            "-f", "lavfi", "-i", "testsrc=s=320x180:r=25:d=2,fade=t=out:st=0.5:d=1.5",
            "-filter_complex", "[0][1][2][3]concat=n=4:v=1:a=0[v]", "-map", "[v]"] + codec + [path])
        let expected = try Self.scdet(path)
        #expect(expected.count >= 3, "the clip has cuts: \(expected)")
        let found = try ShotChangeDetector.detect(path: path)
        #expect(found.changes.count == expected.count, "\(found.changes) vs scdet \(expected)")
        for (a, b) in zip(found.changes, expected) { #expect(abs(a - b) < 0.001, "\(found.changes) vs scdet \(expected)") }
        #expect(found.frames == 200 && found.frameRate == 25)
    }

    @Test func aFileWithoutPictureIsSaidToHaveNone() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-shots-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Tool.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-f", "lavfi", "-i", "sine=d=1", path])
        #expect(throws: MediaError.noVideo(path: path)) { _ = try ShotChangeDetector.detect(path: path) }
    }
}
