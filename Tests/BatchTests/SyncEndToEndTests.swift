import Foundation
import Testing

/// `capforge sync` on a real recording: subtitles made for it, moved as copies of a video move
/// them, come back to their times; only the times change.
@Suite(.serialized, .timeLimit(.minutes(30))) struct SyncEndToEndTests {
    static let video = CLI.fixtures.appendingPathComponent("two_cities.webm").path

    /// The recording's own captions (SRT and ASS), made once: the times the sync must find again.
    final class Made: Sendable {
        static let shared = Made()
        let folder: URL
        let error: String?
        private init() {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-sync-\(UUID().uuidString)")
            let run = try? CLI().run(["caption", SyncEndToEndTests.video, "--out", folder.path, "--model", "tiny.en", "--formats", "srt,ass"])
            error = run?.status == 0 ? nil : "captioning the fixture failed: \(run?.stderr ?? "did not run")"
        }
        var srt: URL { folder.appendingPathComponent("two_cities.en.srt") }
        var ass: URL { folder.appendingPathComponent("two_cities.en.ass") }
    }

    static let time = try! NSRegularExpression(pattern: #"(\d+):(\d\d):(\d\d)[,.](\d+)"#)

    /// Every time stamp in `text`, in seconds, in order.
    static func times(_ text: String) -> [Double] {
        time.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            let part = { (i: Int) in Double(text[Range(match.range(at: i), in: text)!])! }
            let fraction = text[Range(match.range(at: 4), in: text)!]
            return part(1) * 3600 + part(2) * 60 + part(3) + part(4) / pow(10, Double(fraction.count))
        }
    }

    /// `text` with every time stamp replaced by `f(seconds)`, written as SRT writes it.
    static func moved(_ text: String, _ f: (Double) -> Double) -> String {
        var result = text
        for match in time.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
            let range = Range(match.range, in: result)!
            let t = times(String(text[Range(match.range, in: text)!]))[0]
            let ms = max(0, Int((f(t) * 1000).rounded()))
            let mark = text[Range(match.range, in: text)!].contains(",") ? "," : "."
            result.replaceSubrange(range, with: String(format: "%02d:%02d:%02d%@%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, mark, ms % 1000))
        }
        return result
    }

    func sync(_ subtitles: String, name: String, extra: [String] = []) throws -> (json: [String: Any], output: String) {
        let made = Made.shared
        let given = made.folder.appendingPathComponent(name)
        try subtitles.write(to: given, atomically: true, encoding: .utf8)
        let output = made.folder.appendingPathComponent("synced-" + name)
        let run = try CLI().run(["sync", Self.video, given.path, "-o", output.path, "--model", "tiny.en", "--json", "--overwrite"] + extra)
        try #require(run.status == 0, "sync failed: \(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        return (json, try String(contentsOf: output, encoding: .utf8))
    }

    /// Each cue's start against the original's, in cue order.
    static func startErrors(_ synced: String, _ original: String) -> [Double] {
        let a = times(synced), b = times(original)
        return stride(from: 0, to: min(a.count, b.count), by: 2).map { abs(a[$0] - b[$0]) }
    }

    @Test func anOffsetIsFoundAndUndone() throws {
        if let error = Made.shared.error { Issue.record("\(error)"); return }
        let original = try String(contentsOf: Made.shared.srt, encoding: .utf8)
        let (json, synced) = try sync(Self.moved(original) { $0 + 4.2 }, name: "offset.srt")
        #expect(json["evidence"] as? String == "words")
        let offset = try #require((json["segments"] as? [[String: Any]])?.first?["offsetMilliseconds"] as? Int)
        #expect(abs(offset + 4200) <= 100, "offset \(offset) ms")
        let errors = Self.startErrors(synced, original)
        #expect(errors.count == Self.times(original).count / 2)
        #expect(errors.max()! <= 0.1, "\(errors)")
        // Nothing but the times changed.
        #expect(synced.replacingOccurrences(of: #"\d+:\d\d:\d\d[,.]\d+"#, with: "T", options: .regularExpression)
            == original.replacingOccurrences(of: #"\d+:\d\d:\d\d[,.]\d+"#, with: "T", options: .regularExpression))
    }

    @Test func aFrameRateConversionIsNamedAndUndone() throws {
        if let error = Made.shared.error { Issue.record("\(error)"); return }
        let original = try String(contentsOf: Made.shared.srt, encoding: .utf8)
        // Subtitles timed on a 25 fps copy, laid on a 24 fps one: each time 24/25 of the truth.
        let (json, synced) = try sync(Self.moved(original) { $0 * 24 / 25 }, name: "rate.srt")
        #expect(json["rateName"] as? String == "25/24")
        #expect(Self.startErrors(synced, original).max()! <= 0.15)
    }

    /// Japanese, written without spaces, is matched character by character. The subtitles are
    /// a sentence a cue, timed at the voice by base's own words (Capforge's captions of this
    /// fixture start some cues a second after their speech, where the cue before was held for
    /// reading), then moved 3.3 s.
    @Test func japaneseSubtitlesAreMatchedCharacterByCharacter() throws {
        let folder = try scratchFolder("sync-japanese")
        defer { try? FileManager.default.removeItem(at: folder) }
        let video = CLI.fixtures.appendingPathComponent("japanese.mp4").path
        let made = try CLI().run(["caption", video, "--out", folder.path, "--model", "base", "--lang", "ja", "--formats", "json"])
        try #require(made.status == 0, "\(made.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("japanese.ja.json"))) as? [String: Any])
        let words = (json["words"] as? [[String: Any]]) ?? []
        var sentences: [(start: Double, end: Double, text: String)] = []
        var open = true
        for word in words {
            guard let text = word["text"] as? String, let start = word["start"] as? Double, let end = word["end"] as? Double else { continue }
            if open { sentences.append((start, end, "")) }
            sentences[sentences.count - 1].end = end
            sentences[sentences.count - 1].text += text
            open = text.hasSuffix("。")
        }
        try #require(sentences.count >= 3, "base heard too little: \(sentences)")
        let stamp = { (t: Double) in String(format: "%02d:%02d:%02d,%03d", Int(t) / 3600, Int(t) / 60 % 60, Int(t) % 60, Int((t * 1000).rounded()) % 1000) }
        let original = sentences.enumerated().map { "\($0 + 1)\n\(stamp($1.start)) --> \(stamp($1.end))\n\($1.text)\n" }.joined(separator: "\n")
        let given = folder.appendingPathComponent("shifted.ja.srt")
        try Self.moved(original) { $0 + 3.3 }.write(to: given, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("synced.ja.srt")
        let run = try CLI().run(["sync", video, given.path, "-o", output.path, "--model", "base", "--json"])
        try #require(run.status == 0, "\(run.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        // The language comes from the subtitle file's name.
        #expect(result["evidence"] as? String == "words" && result["language"] as? String == "ja")
        #expect(result["rateName"] == nil || result["rateName"] is NSNull, "\(result)")
        #expect(Self.startErrors(try String(contentsOf: output, encoding: .utf8), original).max()! <= 0.15)
    }

    @Test func assOverridesAndCommentsAreKeptAndCuesPastTheEndSaid() throws {
        if let error = Made.shared.error { Issue.record("\(error)"); return }
        var script = try String(contentsOf: Made.shared.ass, encoding: .utf8)
        // An override on the first event, a comment, and a cue the recording has no room for.
        let firstEvent = try #require(script.range(of: #"Dialogue: 0,[^\n]*,,0,0,0,,"#, options: .regularExpression))
        script.insert(contentsOf: #"{\an8\c&H00FFFF&}"#, at: firstEvent.upperBound)
        script += "Comment: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,a note for the translator\n"
        script += "Dialogue: 0,0:09:00.00,0:09:02.00,Default,,0,0,0,,Words nobody says here\n"
        let (json, synced) = try sync(Self.moved(script) { $0 + 2.5 }, name: "styled.ass")
        #expect(synced.contains(#"{\an8\c&H00FFFF&}"#) && synced.contains("a note for the translator"))
        let unplaced = try #require(json["unplaced"] as? [[String: Any]])
        #expect(unplaced.map { $0["text"] as? String } == ["Words nobody says here"])
        #expect(!synced.contains("Words nobody says here"))
        // Every other line is the original's, times aside.
        let strip = { (text: String) in text.replacingOccurrences(of: #"\d+:\d\d:\d\d[,.]\d+"#, with: "T", options: .regularExpression) }
        #expect(strip(synced) + "Dialogue: 0,T,T,Default,,0,0,0,,Words nobody says here\n" == strip(Self.moved(script) { $0 + 2.5 }))
    }

    /// `caption FOLDER --sync`: each video's subtitle files named after it, and only those, are
    /// re-timed beside them; Capforge's own captions are not taken for them; one unreadable file
    /// fails alone; a rerun skips what is current.
    @Test func aFolderIsSyncedVideoByVideo() throws {
        if let error = Made.shared.error { Issue.record("\(error)"); return }
        let scene = try HostileMuxTests.Scene("sync-folder")
        defer { scene.remove() }
        try FileManager.default.copyItem(atPath: Self.video, toPath: scene.path("two_cities.webm"))
        let original = try String(contentsOf: Made.shared.srt, encoding: .utf8)
        _ = try scene.write("two_cities.en.srt", Self.moved(original) { $0 + 1.7 })
        _ = try scene.write("two_cities.broken.srt", "1\n00:00:01,000 --> nonsense\n")
        _ = try scene.write("unrelated.srt", original)
        // A FIFO where a subtitle file should be, and a copy in the way that Capforge did not write.
        #expect(mkfifo(scene.path("two_cities.pipe.srt"), 0o644) == 0)
        _ = try scene.write("two_cities.de.srt", Self.moved(original) { $0 + 1.7 })
        _ = try scene.write("two_cities.de.synced.srt", "a hand-made file\n")
        // Captions Capforge writes beside the video are its own, not a copy's subtitles.
        let captioned = try CLI().run(["caption", scene.path("two_cities.webm"), "--model", "tiny.en", "--formats", "vtt"])
        try #require(captioned.status == 0, "\(captioned.stderr)")
        let run = try CLI().run(["caption", scene.folder.path, "--sync", "--model", "tiny.en", "--report", scene.path("review.html")])
        #expect(run.status == 1, "\(run.stdout)")
        // The review page shows the re-timed cues and marks the map on the timeline.
        let page = try String(contentsOfFile: scene.path("review.html"), encoding: .utf8)
        #expect(page.contains("class=\"mark sync-map\"") && page.contains("two_cities.en.srt: map no drift, offset -1.700 s"), "\(page)")
        #expect(page.contains("two_cities.broken.srt: failed"))
        #expect(run.stdout.contains("two_cities.en.srt → two_cities.en.synced.srt: 10 of 10 cues re-timed") && run.stdout.contains("offset -1.700 s"), "\(run.stdout)")
        #expect(run.stdout.contains("two_cities.broken.srt: FAILED"), "\(run.stdout)")
        #expect(!run.stdout.contains("two_cities.en.vtt") && !run.stdout.contains("unrelated"), "\(run.stdout)")
        #expect(run.stdout.contains("two_cities.pipe.srt: FAILED") && run.stdout.contains("is a FIFO"), "\(run.stdout)")
        #expect(run.stdout.contains("two_cities.de.srt: FAILED") && run.stdout.contains("two_cities.de.synced.srt"), "\(run.stdout)")
        #expect(try String(contentsOfFile: scene.path("two_cities.de.synced.srt"), encoding: .utf8) == "a hand-made file\n")
        #expect(run.stdout.contains("1 subtitle file(s) re-timed, 0 skipped (current), 3 failed, for 1 of 2 file(s)"), "\(run.stdout)")
        let synced = try String(contentsOfFile: scene.path("two_cities.en.synced.srt"), encoding: .utf8)
        #expect(Self.startErrors(synced, original).max()! <= 0.1)
        #expect(!FileManager.default.fileExists(atPath: scene.path("unrelated.synced.srt")) && !FileManager.default.fileExists(atPath: scene.path("two_cities.en.synced.vtt")))
        for name in ["two_cities.broken.srt", "two_cities.pipe.srt", "two_cities.de.srt"] { try FileManager.default.removeItem(atPath: scene.path(name)) }
        let again = try CLI().run(["caption", scene.folder.path, "--sync", "--model", "tiny.en"])
        #expect(again.status == 0 && again.stdout.contains("0 subtitle file(s) re-timed, 1 skipped (current)"), "\(again.stdout)")
        let refused = try CLI().run(["caption", scene.folder.path, "--sync", "--burn"])
        #expect(refused.status == 2 && refused.stderr.contains("--burn is for captioning"), "\(refused.stderr)")
    }
}
