import Foundation
import Burn
import Captions
import Media
import TestSupport
import Testing

/// Builds small inputs with the ffmpeg CLI and reads outputs back as raw luma for pixel checks.
struct BurnWorkspace {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("burn-tests-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Runs ffmpeg quietly with `arguments`, writing `name` in the workspace.
    @discardableResult
    func ffmpeg(_ arguments: [String], output name: String) throws -> String {
        let out = path(name)
        try Tool.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y"] + arguments + [out])
        return out
    }

    /// A synthetic clip of `seconds` from lavfi's testsrc2, for special pixel formats and sizes.
    func testClip(_ name: String, size: String, rate: Int = 10, seconds: Int = 3, encoder: [String]) throws -> String {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=\(size):r=\(rate):d=\(seconds)"] + encoder, output: name)
    }
}

/// Luma planes of every frame, as players show them (ffmpeg applies the display matrix).
struct LumaFrames {
    let width: Int
    let height: Int
    let frames: [[UInt8]]

    /// `width`/`height` are the shown size after `filter`.
    init(_ path: String, width: Int, height: Int, filter: String? = nil) throws {
        let data = try Tool.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-i", path] + (filter.map { ["-vf", $0] } ?? [])
                                + ["-f", "rawvideo", "-pix_fmt", "gray", "-"])
        self.width = width
        self.height = height
        let frameSize = width * height
        frames = stride(from: 0, to: data.count - frameSize + 1, by: frameSize).map { Array(data[$0..<($0 + frameSize)]) }
    }

    /// Rows `rows` of frame `index`.
    func region(_ index: Int, rows: Range<Int>) -> ArraySlice<UInt8> {
        frames[index][(rows.lowerBound * width)..<(rows.upperBound * width)]
    }
}

enum PixelMath {
    /// Peak signal-to-noise ratio in dB (infinity for identical input).
    static func psnr(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Double {
        var sum = 0.0
        for (x, y) in zip(a, b) {
            let d = Double(x) - Double(y)
            sum += d * d
        }
        let mse = sum / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}

enum AudioPackets {
    /// The concatenated payload of every audio packet, as the file stores it.
    static func payload(_ path: String) throws -> Data {
        try Tool.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-i", path, "-map", "0:a", "-c", "copy", "-f", "data", "-"])
    }
}

/// A small ASS script for a 320x180 picture: `cues` at the bottom, optionally a Notice event.
func testScript(cues: [(start: String, end: String, text: String)], noticeUntil: String? = nil) -> String {
    var lines = [
        "[Script Info]", "ScriptType: v4.00+", "PlayResX: 320", "PlayResY: 180", "",
        "[V4+ Styles]",
        "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding",
        "Style: Default,DejaVu Sans,20,&H00FFFFFF,&H000000FF,&H00000000,&H80000000,0,0,0,0,100,100,0,0,1,2,1,2,10,10,8,1",
        "Style: Notice,DejaVu Sans,12,&H0000FFFF,&H000000FF,&H00000000,&H60000000,1,0,0,0,100,100,0,0,3,3,0,8,10,10,4,1",
        "", "[Events]", "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text",
    ]
    if let noticeUntil { lines.append("Dialogue: 1,0:00:00.00,\(noticeUntil),Notice,,0,0,0,,Basic recognition") }
    lines += cues.map { "Dialogue: 0,\($0.start),\($0.end),Default,,0,0,0,,\($0.text)" }
    return lines.joined(separator: "\n") + "\n"
}

/// The repository's default caption style: it gives the Notice style to scripts without one.
func shippedStyleSheet() throws -> StyleSheet {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return try StyleSheet.load(named: "default", in: root.appendingPathComponent("Styles"))
}
