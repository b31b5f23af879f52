import Foundation
import Testing

/// The main job end to end, through the real tool, engines and models.
@Suite(.serialized, .timeLimit(.minutes(30)))
struct BatchCLITests {
    let cli = CLI()

    @Test func goodBadAndDoneFilesThenANoOpRerun() throws {
        let folder = try scratchFolder("batch")
        defer { try? FileManager.default.removeItem(at: folder) }
        try copyFixture("librivox-0880.mkv", to: folder)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("talks"), withIntermediateDirectories: true)
        try copyFixture("librivox-0930.mkv", to: folder.appendingPathComponent("talks"))
        // Captioned once already: the batch must skip it.
        let first = try cli.run(["caption", folder.path, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        try Data().write(to: folder.appendingPathComponent("empty.mp4"))
        try Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: folder.appendingPathComponent("garbage.mkv"))
        try copyFixture("librivox-0890.mkv", to: folder)

        let run = try cli.run(["caption", folder.path, "--json"])
        #expect(run.status == 1, "a failed file makes the exit code 1")
        let failed = Set(run.events("file-failed").compactMap { ($0["file"] as? String).map { ($0 as NSString).lastPathComponent } })
        #expect(failed == ["empty.mp4", "garbage.mkv"])
        #expect(run.events("file-failed").allSatisfy { ($0["error"] as? String)?.isEmpty == false })
        #expect(run.events("file-skipped").count == 2)
        #expect(run.events("file-done").count == 1)
        for name in ["librivox-0890.en.srt", "librivox-0890.en.ass", "librivox-0890.en.vtt", "librivox-0890.en.json", "talks/librivox-0930.en.srt"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), "\(name) missing")
        }
        #expect(!listing(folder).contains { $0.hasSuffix(".partial") })

        // Nothing changed: nothing is transcribed or rewritten.
        let written = folder.appendingPathComponent("librivox-0890.en.srt")
        let writtenAt = try FileManager.default.attributesOfItem(atPath: written.path)[.modificationDate] as? Date
        let rerun = try cli.run(["caption", folder.path, "--json"])
        #expect(rerun.events("file-skipped").count == 3)
        #expect(rerun.events("chunk").isEmpty)
        #expect(try FileManager.default.attributesOfItem(atPath: written.path)[.modificationDate] as? Date == writtenAt)

        // One input changed: only it is redone.
        let touched = folder.appendingPathComponent("librivox-0880.mkv")
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: touched.path)
        let after = try cli.run(["caption", folder.path, "--json"])
        #expect(after.events("file-done").compactMap { $0["file"] as? String } == [touched.path])
        #expect(after.events("file-skipped").count == 2)

        // Other settings: every file is redone.
        let reprofiled = try cli.run(["caption", folder.path, "--json", "--profile", "bbc"])
        #expect(reprofiled.events("file-done").count == 3)
    }

    @Test func interruptThenRerunEqualsAnUninterruptedRun() throws {
        let reference = try scratchFolder("reference")
        let interrupted = try scratchFolder("interrupted")
        defer {
            try? FileManager.default.removeItem(at: reference)
            try? FileManager.default.removeItem(at: interrupted)
        }
        // The reading three times over (133 s): with two chunks heard at once, a run stopped after
        // its first chunk still has chunks to go.
        let fixture = CLI.fixtures.appendingPathComponent("two_cities.webm").path
        for folder in [reference, interrupted] {
            try #require(try runTool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-stream_loop", "2", "-i", fixture, "-c", "copy",
                                                         folder.appendingPathComponent("two_cities.webm").path]) == 0)
        }
        #expect(try cli.run(["caption", reference.path, "--json"]).status == 0)

        let stopped = try cli.run(["caption", interrupted.path, "--json"], signal: SIGINT)
        #expect(stopped.status == 130)
        #expect(stopped.events("batch-finished").first?["interrupted"] as? Bool == true)
        #expect(!listing(interrupted).contains { $0.hasSuffix(".partial") }, "temporaries removed")
        #expect(!listing(interrupted).contains { $0.hasSuffix(".srt") }, "no output from an unfinished file")

        let resumed = try cli.run(["caption", interrupted.path, "--json"])
        #expect(resumed.status == 0)
        #expect(resumed.events("chunk").contains { $0["resumed"] as? Bool == true }, "finished chunks came from the journal")
        for ext in ["en.srt", "en.vtt", "en.ass"] {
            let a = try String(contentsOf: reference.appendingPathComponent("two_cities.\(ext)"), encoding: .utf8)
            let b = try String(contentsOf: interrupted.appendingPathComponent("two_cities.\(ext)"), encoding: .utf8)
            #expect(a == b, "\(ext) differs after resume")
        }
    }

    @Test func killedMidFileResumesToTheSameTranscript() throws {
        let reference = try scratchFolder("reference")
        let killed = try scratchFolder("killed")
        defer {
            try? FileManager.default.removeItem(at: reference)
            try? FileManager.default.removeItem(at: killed)
        }
        for folder in [reference, killed] { try copyFixture("two_cities.webm", to: folder) }
        #expect(try cli.run(["caption", reference.path, "--json", "--formats", "json,srt"]).status == 0)
        let died = try cli.run(["caption", killed.path, "--json", "--formats", "json,srt"], signal: SIGKILL)
        #expect(died.status == SIGKILL || died.status == 128 + SIGKILL || died.status != 0)
        #expect(try cli.run(["caption", killed.path, "--json", "--formats", "json,srt"]).status == 0)
        /// The words, re-encoded with sorted keys: nested objects (a word's evidence) compare as text.
        func words(_ folder: URL) throws -> (count: Int, json: Data) {
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("two_cities.en.json"))) as? [String: Any]
            let words = (json?["words"] as? [Any]) ?? []
            return (words.count, try JSONSerialization.data(withJSONObject: words, options: [.sortedKeys]))
        }
        #expect(try words(reference).count > 0)
        #expect(try words(reference).json == words(killed).json)
        #expect(try String(contentsOf: reference.appendingPathComponent("two_cities.en.srt"), encoding: .utf8)
                == String(contentsOf: killed.appendingPathComponent("two_cities.en.srt"), encoding: .utf8))
    }

    @Test func shardsCoverEveryFileExactlyOnce() throws {
        func listed(_ shard: String?) throws -> Set<String> {
            let run = try cli.run(["caption", CLI.fixtures.path, "--dry-run"] + (shard.map { ["--shard", $0] } ?? []))
            return Set(run.stdout.split(separator: "\n").compactMap { line in
                line.contains(": ") && !line.contains("file(s)") ? String(line.prefix { $0 != ":" }) : nil
            })
        }
        let all = try listed(nil)
        #expect(all.count >= 14)
        let parts = try (1...3).map { try listed("\($0)/3") }
        #expect(parts.reduce(Set<String>()) { $0.union($1) } == all)
        #expect(parts.map(\.count).reduce(0, +) == all.count, "no file in two shards")
        #expect(try cli.run(["caption", CLI.fixtures.path, "--shard", "4/3"]).status == 2)
    }

    @Test func outputsMirrorUnderOutAndNeverEscapeIt() throws {
        let source = try scratchFolder("names")
        let out = try scratchFolder("out")
        defer {
            try? FileManager.default.removeItem(at: source)
            try? FileManager.default.removeItem(at: out)
        }
        let nested = source.appendingPathComponent("week 1/odd..name")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try copyFixture("librivox-0880.mkv", to: nested, as: "line\nbreak.mkv")
        // A name that is not UTF-8 (Latin-1 "é"), as old archives have.
        let rawName: [CChar] = (Array(source.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".mkv".utf8) + [0]).map { CChar(bitPattern: $0) }
        let fd = open(rawName, O_WRONLY | O_CREAT, 0o644)
        try #require(fd >= 0)
        let clip = try Data(contentsOf: CLI.fixtures.appendingPathComponent("librivox-0930.mkv"))
        _ = clip.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)

        let run = try cli.run(["caption", source.path, "--out", out.path, "--json", "--formats", "srt"])
        #expect(run.status == 1, "the undecodable name is reported as a problem")
        #expect(run.stderr.contains("not valid UTF-8"))
        let written = listing(out).filter { $0.hasSuffix(".srt") }
        #expect(written == ["week 1/odd..name/line_break.en.srt"])
        for path in written {
            let resolved = out.appendingPathComponent(path).standardizedFileURL.path
            #expect(resolved.hasPrefix(out.path + "/"))
            #expect(!path.contains("\n"))
        }
        #expect(listing(source).filter { $0.hasSuffix(".srt") }.isEmpty, "nothing written beside the sources with --out")
    }
}

extension BatchCLITests {
    @Test func inputsThatWouldShareOutputNamesAreNotSilentlyOverwritten() throws {
        let folder = try scratchFolder("clash")
        defer { try? FileManager.default.removeItem(at: folder) }
        try copyFixture("librivox-0880.mkv", to: folder, as: "talk.mkv")
        try copyFixture("librivox-0930.mkv", to: folder, as: "talk.mp4")
        let run = try cli.run(["caption", folder.path, "--json", "--formats", "srt"])
        #expect(run.status == 1)
        let failed = run.events("file-failed")
        #expect(failed.count == 1)
        #expect((failed.first?["error"] as? String)?.contains("would overwrite those of talk.mkv") == true)
        let srt = try String(contentsOf: folder.appendingPathComponent("talk.en.srt"), encoding: .utf8)
        #expect(srt.lowercased().contains("young man"), "talk.en.srt must hold talk.mkv's words: \(srt)")
    }
}
