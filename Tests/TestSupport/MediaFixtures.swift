import Foundation

/// Paths into the repository's Fixtures/ and helpers that run the ffmpeg CLI as the reference.
public enum Fixtures {
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    public static func path(_ name: String) -> String { root.appendingPathComponent(name).path }

    public static var bad: URL { root.appendingPathComponent("bad") }
}

public enum Tool {
    /// Thrown, it fails the test (TestSupport is not a test target: no `#require` here).
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs a command line tool and returns its standard output; fails the test on non-zero exit.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) failed") }
        return data
    }

    /// What `ffmpeg -i IN -vn -ac 1 -ar 16000 -f f32le` produces for one stream.
    public static func ffmpegReference(_ path: String, stream: Int) throws -> [Float] {
        let data = try run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-i", path, "-map", "0:\(stream)", "-vn", "-ac", "1", "-ar", "16000", "-f", "f32le", "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Seconds between the file's start_time and the stream's first decoded audio frame, per ffprobe.
    public static func firstFrameOffset(_ path: String, stream: Int) throws -> Double {
        let start = try run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=start_time", "-of", "csv=p=0", path])
        let frame = try run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "\(stream)", "-show_frames",
                                                  "-show_entries", "frame=best_effort_timestamp_time", "-of", "csv=p=0", path])
        func number(_ d: Data) -> Double { Double(String(decoding: d, as: UTF8.self).split(separator: "\n").first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0 }
        return number(frame) - number(start)
    }
}
