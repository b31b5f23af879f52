import CapforgeCore
import Foundation
import Testing

/// A batch's outputs against each other, through the real tool: the review page never takes the
/// place of captions or an input, one input's outputs never silently replace another's, and a
/// file that went away or held no speech is said to be so. Every run ends by itself with a clear
/// message naming the file, touches no file but its own outputs, and stays under a memory cap.
///
/// The caps are about twice what each run was measured to need (debug build, 2 cores): a run
/// that captions with tiny.en about 215 MB, one refused before recognising anything 40-70 MB,
/// base over silence (nothing to recognise) 77 MB; each run prints its peak and time.
@Suite(.serialized) struct HostileBatchTests {
    static let environment = CLI().environment
    static let tinyModel = CLI.models.appendingPathComponent("ggml-tiny.en.bin").path

    func run(_ arguments: [String], cap: Double, signal: Int32? = nil, when ready: () -> Bool = { true }) throws -> MeasuredRun {
        try MeasuredRun.checked(arguments, label: "hostile batch", environment: Self.environment, cap: cap, signal: signal, when: ready)
    }

    /// Every file under `folder` with its checksum; `state` false leaves out Capforge's own
    /// `.capforge` records, which a run keeps whatever becomes of its files.
    func checksums(_ folder: URL, state: Bool = true) throws -> [String: String] {
        var sums: [String: String] = [:]
        for path in listing(folder) where state || !path.split(separator: "/").contains(".capforge") {
            let url = folder.appendingPathComponent(path)
            var info = stat()
            guard lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            sums[path] = try SHA256.hex(ofFile: url)
        }
        return sums
    }

    /// `caption DIR --report DIR/talk.en.srt` took Capforge's own SRT (its ledger said Capforge
    /// wrote it) and the rerun then called the outputs current. The page may not be named as any
    /// output the run may write (whatever the spelling), an input, or Capforge's state: a usage
    /// error before anything runs; and a caption file of another run is not a page's to replace.
    @Test func theReportNeverTakesThePlaceOfCaptionsOrAnInput() throws {
        let folder = try scratchFolder("hostile-report")
        defer { try? FileManager.default.removeItem(at: folder) }
        let media = folder.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        try copyFixture("librivox-0880.mkv", to: media, as: "talk.mkv")
        let first = try run(["caption", media.path, "--model", Self.tinyModel, "--formats", "srt,json"], cap: 430)
        #expect(first.status == 0, "\(first.stderr)")
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("link").path, withDestinationPath: "media")
        let before = try checksums(folder)

        let named: [(report: String, says: String)] = [
            ("media/talk.en.srt", "this run writes the outputs of talk.mkv there"),
            ("media/talk.fr.vtt", "this run writes the outputs of talk.mkv there"),
            ("link/talk.captioned.mp4", "this run writes the outputs of talk.mkv there"),
            ("media/talk.mkv", "it is the input"),
            ("media/.capforge/outputs/page.html", "inside Capforge's state folder"),
        ]
        for (report, says) in named {
            let refused = try run(["caption", media.path, "--model", Self.tinyModel, "--formats", "srt,json", "--report", folder.appendingPathComponent(report).path],
                                  cap: 140)
            #expect(refused.status == 2, "\(report): \(refused.stderr)")
            #expect(refused.stderr.contains("'--report'") && refused.stderr.contains(report) && refused.stderr.contains(says), "\(refused.stderr)")
            #expect(try checksums(folder) == before, "\(report): nothing may change, not even Capforge's records")
        }

        // Another run's page over this run's captions: Capforge wrote them, but as captions.
        let other = folder.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try copyFixture("librivox-0890.mkv", to: other, as: "b.mkv")
        let withOther = try checksums(folder)
        let srt = media.appendingPathComponent("talk.en.srt")
        let page = try run(["caption", other.path, "--model", Self.tinyModel, "--formats", "srt", "--report", srt.path], cap: 140)
        #expect(page.status == 1 && page.stderr.contains(srt.path) && page.stderr.contains("wrote it as captions, not as a review page"), "\(page.stderr)")
        #expect(try checksums(folder) == withOther, "refused before the run: b.mkv is not captioned either")

        // The rerun still knows its outputs for what they are.
        let rerun = try run(["caption", media.path, "--model", Self.tinyModel, "--formats", "srt,json"], cap: 140)
        #expect(rerun.status == 0 && rerun.output.contains("1 skipped (current)"), "\(rerun.output)")
        #expect(try checksums(folder, state: false) == withOther.filter { !$0.key.contains(".capforge") })
    }

    /// `talk.mkv` and `talk.webm` share their output names. A folder run keeps the first; a later
    /// run of `talk.webm` alone, or one that reaches the folder through a link, must not replace
    /// talk.mkv's captions unasked: the manifest says whose they are. With `--overwrite` they are
    /// replaced, and talk.mkv is then no longer current: its rerun names talk.webm.
    @Test func oneInputsOutputsNeverSilentlyReplaceAnothers() throws {
        let folder = try scratchFolder("hostile-owner")
        defer { try? FileManager.default.removeItem(at: folder) }
        let coll = folder.appendingPathComponent("coll")
        try FileManager.default.createDirectory(at: coll, withIntermediateDirectories: true)
        try copyFixture("librivox-0880.mkv", to: coll, as: "talk.mkv")
        try copyFixture("librivox-0890.mkv", to: coll, as: "talk.webm")
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("link").path, withDestinationPath: "coll")
        let arguments = ["--model", Self.tinyModel, "--formats", "srt,ass,vtt,json"]

        let both = try run(["caption", coll.path] + arguments, cap: 430)
        #expect(both.status == 1 && both.output.contains("talk.webm") && both.output.contains("would overwrite those of talk.mkv"), "\(both.output)")
        let mkvCaptions = try checksums(folder, state: false)
        #expect(mkvCaptions.count == 6, "talk.mkv, talk.webm and talk.mkv's four outputs: \(mkvCaptions.keys.sorted())")

        let alone = try run(["caption", coll.appendingPathComponent("talk.webm").path] + arguments, cap: 140)
        #expect(alone.status == 1, "\(alone.output)")
        #expect(alone.output.contains(coll.appendingPathComponent("talk.mkv").path) && alone.output.contains("another input")
            && alone.output.contains("--overwrite"), "\(alone.output)")
        #expect(try checksums(folder, state: false) == mkvCaptions)

        // One run, two spellings of the folder: the link resolves to the same outputs.
        let linked = try run(["caption", coll.appendingPathComponent("talk.mkv").path, folder.appendingPathComponent("link/talk.webm").path] + arguments, cap: 140)
        #expect(linked.status == 1 && linked.output.contains("would overwrite those of talk.mkv"), "\(linked.output)")
        #expect(try checksums(folder, state: false) == mkvCaptions)

        let asked = try run(["caption", coll.appendingPathComponent("talk.webm").path, "--overwrite"] + arguments, cap: 430)
        #expect(asked.status == 0, "\(asked.output)")
        let webmCaptions = try checksums(folder, state: false)
        #expect(webmCaptions["coll/talk.en.srt"] != mkvCaptions["coll/talk.en.srt"])
        #expect(webmCaptions.filter { $0.key.hasPrefix("coll/talk.en.") }.count == 4)

        let mkvAgain = try run(["caption", coll.appendingPathComponent("talk.mkv").path] + arguments, cap: 140)
        #expect(mkvAgain.status == 1 && mkvAgain.output.contains(coll.appendingPathComponent("talk.webm").path), "\(mkvAgain.output)")
        #expect(mkvAgain.output.contains("0 skipped (current)"), "no longer current: its captions are talk.webm's")
        #expect(try checksums(folder, state: false) == webmCaptions)
    }

    /// An input removed while the batch works on another: it no longer exists, which is not a
    /// matter of permissions; the rest of the batch is written.
    @Test func anInputRemovedDuringTheRunIsSaidToBeGone() throws {
        let folder = try scratchFolder("hostile-removed")
        defer { try? FileManager.default.removeItem(at: folder) }
        try copyFixture("librivox.mp4", to: folder, as: "a.mp4")
        try copyFixture("librivox-0880.mkv", to: folder, as: "b.mkv")
        let gone = folder.appendingPathComponent("b.mkv")
        let before = try checksums(folder, state: false)
        // Removed once a.mp4's audio is being spooled: the scan and the probes are behind. Signal
        // 0 delivers nothing; it only lets the removal happen at that moment.
        let spool = folder.appendingPathComponent(".capforge/spool")
        let result = try run(["caption", folder.path, "--model", Self.tinyModel, "--formats", "srt"], cap: 430, signal: 0) {
            FileManager.default.fileExists(atPath: spool.path) && (try? FileManager.default.removeItem(at: gone)) != nil
        }
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("\(gone.path): no longer exists") && result.output.contains("removed"), "\(result.output)")
        #expect(!result.output.contains("permissions"))
        let after = try checksums(folder, state: false)
        #expect(after["a.mp4"] == before["a.mp4"] && after["a.en.srt"] != nil && after["b.mkv"] == nil)
        #expect(Set(after.keys) == ["a.mp4", "a.en.srt"], "nothing else written: \(after.keys.sorted())")
    }

    /// `--translate` on a file without speech said "the speech is English": nothing was heard.
    @Test func translatingSilenceSaysNoSpeechWasFound() throws {
        let folder = try scratchFolder("hostile-silence")
        defer { try? FileManager.default.removeItem(at: folder) }
        try copyFixture("silence-music.mkv", to: folder, as: "quiet.mkv")
        let before = try checksums(folder, state: false)
        let base = CLI.models.appendingPathComponent("ggml-base.bin").path
        let result = try run(["caption", folder.path, "--model", base, "--translate", "--formats", "srt,vtt"], cap: 160)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("quiet.mkv: no speech was found, so --translate had nothing to translate"), "\(result.output)")
        #expect(!result.output.contains("the speech is English"))
        // No 0-byte SRT, which pysubs2 and webvtt-py reject: none, said; a WebVTT that says why it is empty.
        #expect(result.output.contains("no speech was found: no SRT written"), "\(result.output)")
        let after = try checksums(folder, state: false)
        #expect(after["quiet.mkv"] == before["quiet.mkv"] && Set(after.keys) == ["quiet.mkv", "quiet.en.vtt"])
        let vtt = try String(contentsOf: folder.appendingPathComponent("quiet.en.vtt"), encoding: .utf8)
        #expect(vtt.hasPrefix("WEBVTT\n") && vtt.contains("No speech was found") && !vtt.contains("-->"), "\(vtt)")
    }
}
