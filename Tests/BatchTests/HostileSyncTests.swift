import Foundation
import Testing

/// Hostile and awkward inputs to `capforge sync`, through the real tool: each ends by itself with
/// an error naming the file, or succeeds saying what it did; under a memory cap; writing nothing
/// but its own output. (Caps: about twice a measured peak, debug build, 2 cores.)
@Suite(.serialized) struct HostileSyncTests {
    static let cap = 400.0

    func run(_ arguments: [String]) throws -> MeasuredRun {
        try MeasuredRun.checked(["sync"] + arguments + ["--model", "tiny.en"], label: "hostile sync", environment: HostileMuxTests.environment, cap: Self.cap)
    }

    @Test func specialFilesVideosAndInputsAsOutputAreRefusedByName() throws {
        let scene = try HostileMuxTests.Scene("sync-special")
        defer { scene.remove() }
        let subs = try scene.write("talk.srt", HostileMuxTests.oneCue)
        let fifo = scene.path("pipe.srt")
        #expect(mkfifo(fifo, 0o644) == 0)
        let sparse = scene.path("sparse.srt")
        #expect(truncate(try scene.write("sparse.srt", ""), 2_000_000_000) == 0)
        let before = scene.snapshot()
        let cases: [([String], String, String)] = [
            ([scene.video, fifo], fifo, "is a FIFO"),
            ([scene.video, "/dev/zero"], "/dev/zero", "is a character device"),
            ([scene.video, sparse], sparse, "is larger than 64 MB"),
            ([scene.video, scene.video], scene.video, "not a text file"),
            ([scene.video, subs, "-o", subs], subs, "one of the input files"),
            ([scene.video, subs, "-o", scene.video], scene.video, "one of the input files"),
            ([scene.path("missing.mp4"), subs], scene.path("missing.mp4"), "no such file"),
        ]
        for (arguments, named, said) in cases {
            let result = try run(arguments)
            #expect(result.status == 1 && result.stderr.contains(named) && result.stderr.contains(said), "\(arguments): \(result.stderr)")
        }
        scene.expectUntouched(since: before)
    }

    /// A video with nothing said: the words fail, the speech is not there, and both are said.
    @Test func aSilentVideoKeepsTheTimesAndSaysWhy() throws {
        let scene = try HostileMuxTests.Scene("sync-silent")
        defer { scene.remove() }
        let silent = try scene.media("silent.mp4", ["-f", "lavfi", "-i", "color=c=black:s=160x90:d=4", "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono",
                                                    "-t", "4", "-c:v", "libx264", "-c:a", "aac"])
        let subs = try scene.write("talk.srt", HostileMuxTests.oneCue)
        let result = try run([silent, subs, "-o", scene.path("out.srt")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("timed by where speech is") && result.stderr.contains("no speech was found"), "\(result.stderr)")
        #expect(try String(contentsOfFile: scene.path("out.srt"), encoding: .utf8) == HostileMuxTests.oneCue)
    }

    /// 100,000 cues running for days over a 3 s clip: bounded work and memory, every cue past
    /// the clip left out and said.
    @Test func aHundredThousandCuesOverAShortClipEndBoundedAndSaid() throws {
        let scene = try HostileMuxTests.Scene("sync-many")
        defer { scene.remove() }
        let text = (0..<100_000).map { i in
            "\(i + 1)\n\(stamp(i * 3000)) --> \(stamp(i * 3000 + 2000))\nline number \(i) of many\n"
        }.joined(separator: "\n")
        let subs = try scene.write("many.srt", text)
        let before = scene.snapshot()
        let result = try run([scene.video, subs, "-o", scene.path("out.srt"), "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect((json["unplaced"] as? [Any])?.count ?? 0 >= 99_990)
        // Named up to a screenful, then counted.
        #expect(((json["warnings"] as? [String]) ?? []).count < 30)
        scene.expectUntouched(since: before, outputs: ["out.srt"])
    }

    private func stamp(_ ms: Int) -> String {
        String(format: "%02d:%02d:%02d,%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }
}
