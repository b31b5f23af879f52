import Foundation
import Testing

/// Paths into the repository's Fixtures/ and helpers that run the ffmpeg CLI as the reference.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func path(_ name: String) -> String { root.appendingPathComponent(name).path }

    static var bad: URL { root.appendingPathComponent("bad") }
}

enum Tool {
    /// Runs a command line tool and returns its standard output; fails the test on non-zero exit.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(executable) \(arguments.joined(separator: " ")) failed")
        return data
    }

    /// What `ffmpeg -i IN -vn -ac 1 -ar 16000 -f f32le` produces for one stream.
    static func ffmpegReference(_ path: String, stream: Int) throws -> [Float] {
        let data = try run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-i", path, "-map", "0:\(stream)", "-vn", "-ac", "1", "-ar", "16000", "-f", "f32le", "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Seconds between the file's start_time and the stream's first decoded audio frame, per ffprobe.
    static func firstFrameOffset(_ path: String, stream: Int) throws -> Double {
        let start = try run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=start_time", "-of", "csv=p=0", path])
        let frame = try run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "\(stream)", "-show_frames",
                                                  "-show_entries", "frame=best_effort_timestamp_time", "-of", "csv=p=0", path])
        func number(_ d: Data) -> Double { Double(String(decoding: d, as: UTF8.self).split(separator: "\n").first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0 }
        return number(frame) - number(start)
    }
}
