import CapforgeCore
import Foundation
import Testing

/// A `.capforge/` folder is input like any other (a shared folder, an unpacked archive): what is
/// planted in it, and in the user's state folder, never sends a write outside it, never crashes,
/// hangs or fills memory, and is never taken for a record Capforge wrote. Through the real tool,
/// captioning a 3 s clip with tiny.en (about 215 MB; caps as in HostileBatchTests).
@Suite(.serialized) struct HostileStateTests {
    static let cap = 430.0

    struct Scene {
        let root: URL
        var tree: URL { root.appendingPathComponent("d") }
        var state: URL { tree.appendingPathComponent(".capforge") }
        var userState: URL { root.appendingPathComponent("user-state") }
        /// What the planted links point at: a file and an empty folder outside every tree.
        var victim: URL { root.appendingPathComponent("outside/notes.txt") }
        var victimFolder: URL { root.appendingPathComponent("outside/folder") }

        init(_ name: String) throws {
            root = try scratchFolder(name)
            try FileManager.default.createDirectory(at: root.appendingPathComponent("d"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: root.appendingPathComponent("outside/folder"), withIntermediateDirectories: true)
            try Data("my own notes\n".utf8).write(to: root.appendingPathComponent("outside/notes.txt"))
            try copyFixture("librivox-0880.mkv", to: root.appendingPathComponent("d"), as: "talk.mkv")
        }

        func remove() { try? FileManager.default.removeItem(at: root) }

        /// The name each state file of `talk.mkv` has in its folder.
        static let entry = String(SHA256.hex(of: Data("talk.mkv".utf8)).prefix(24))

        func link(_ path: String, to target: URL) throws {
            let place = state.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: place.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: place, withDestinationURL: target)
        }

        func caption(_ extra: [String] = []) throws -> MeasuredRun {
            var environment = HostileBatchTests.environment
            environment["XDG_STATE_HOME"] = userState.path
            return try MeasuredRun.checked(["caption", tree.path, "--model", HostileBatchTests.tinyModel, "--formats", "srt,json", "--shot-changes"] + extra,
                                           label: "hostile state", environment: environment, cap: HostileStateTests.cap)
        }

        /// The victim file's bytes and the victim folder's listing: both must never change.
        func outside() throws -> (Data, [String]) {
            (try Data(contentsOf: victim), listing(victimFolder))
        }
    }

    /// `ln -s ~/notes.txt d/.capforge/manifest/<entry>.json` made the manifest overwrite the
    /// notes. Every state file planted as a link: each is replaced by the file Capforge writes,
    /// what it pointed at is untouched, and the run succeeds.
    @Test func aStateFilePlantedAsALinkIsReplacedNeverWrittenThrough() throws {
        let scene = try Scene("state-file-links")
        defer { scene.remove() }
        let ledgerEntry = String(SHA256.hex(of: Data(scene.tree.resolvingSymlinksInPath().appendingPathComponent("talk.en.srt").path.utf8)).prefix(32))
        let planted = ["manifest/\(Scene.entry).json", "shots/\(Scene.entry).json", "journal/\(Scene.entry).jsonl", "outputs/\(ledgerEntry).json"]
        for path in planted { try scene.link(path, to: scene.victim) }
        try FileManager.default.createDirectory(at: scene.userState.appendingPathComponent("capforge"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: scene.userState.appendingPathComponent("capforge/speed.json"), withDestinationURL: scene.victim)
        let before = try scene.outside()

        let run = try scene.caption()
        #expect(run.status == 0, "\(run.output)")
        #expect(try scene.outside() == before, "a planted link was written through")
        for path in ["manifest/\(Scene.entry).json", "shots/\(Scene.entry).json", "outputs/\(ledgerEntry).json"] {
            var info = stat()
            #expect(lstat(scene.state.appendingPathComponent(path).path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG, "\(path) is Capforge's own file now")
        }
        #expect(FileManager.default.fileExists(atPath: scene.tree.appendingPathComponent("talk.en.srt").path))
    }

    /// A state folder (or `.capforge` itself) planted as a link to a folder elsewhere: refused,
    /// naming the link and what to do, and nothing is written where it points. The file fails,
    /// but where only a record for the rerun is lost (the manifest entry, the shot changes found):
    /// its captions are written and the warning says so.
    @Test(arguments: [".capforge", "manifest", "journal", "shots", "spool", "outputs"])
    func aStateFolderPlantedAsALinkIsRefusedByName(folder: String) throws {
        let scene = try Scene("state-folder-link")
        defer { scene.remove() }
        if folder == ".capforge" {
            try FileManager.default.createSymbolicLink(at: scene.state, withDestinationURL: scene.victimFolder)
        } else {
            try scene.link(folder, to: scene.victimFolder)
        }
        let before = try scene.outside()
        let run = try scene.caption()
        let shown = folder == ".capforge" ? scene.state.path : scene.state.appendingPathComponent(folder).path
        #expect(run.status == (["manifest", "shots"].contains(folder) ? 0 : 1), "\(run.output)")
        #expect(run.output.contains("refusing to use \(shown): it is a symbolic link"), "\(run.output)")
        #expect(try scene.outside() == before, "written into the folder a planted link names")
    }

    /// Records no run makes: a manifest entry and a shots cache with times no media has
    /// (1e308 trapped a conversion), a 1.5 GB cache (read whole: 1.57 GB), a FIFO where the
    /// manifest entry belongs (a blocking open would hang). Each is ignored and replaced: the
    /// file is captioned again, its shot changes found again.
    @Test func recordsNoRunMakesAreNotTrusted() throws {
        let scene = try Scene("state-values")
        defer { scene.remove() }
        let first = try scene.caption()
        #expect(first.status == 0, "\(first.output)")
        let manifest = scene.state.appendingPathComponent("manifest/\(Scene.entry).json")
        let shots = scene.state.appendingPathComponent("shots/\(Scene.entry).json")

        func edit(_ url: URL, _ change: (inout [String: Any]) -> Void) throws {
            var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
            change(&object)
            try JSONSerialization.data(withJSONObject: object).write(to: url)
        }
        try edit(manifest) { entry in
            var result = entry["result"] as? [String: Any] ?? [:]
            result["duration"] = 1e308
            entry["result"] = result
        }
        try edit(shots) { entry in
            var result = entry["result"] as? [String: Any] ?? [:]
            result["changes"] = [1e308, -1e300]
            entry["result"] = result
        }
        let implausible = try scene.caption()
        #expect(implausible.status == 0 && implausible.output.contains("1 captioned, 0 skipped"), "\(implausible.output)")
        let redone = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: shots)) as? [String: Any])
        #expect(((redone["result"] as? [String: Any])?["changes"] as? [Double])?.allSatisfy { $0 < 4 } == true, "the cache was found anew")

        #expect(unlink(shots.path) == 0 && FileManager.default.createFile(atPath: shots.path, contents: nil) && truncate(shots.path, 1_500_000_000) == 0)
        #expect(unlink(manifest.path) == 0 && mkfifo(manifest.path, 0o644) == 0)
        let giant = try scene.caption()
        #expect(giant.status == 0 && giant.output.contains("1 captioned, 0 skipped"), "\(giant.output)")
        var info = stat()
        #expect(lstat(shots.path, &info) == 0 && info.st_size < 1_000_000 && lstat(manifest.path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
        #expect(try scene.caption().output.contains("0 captioned, 1 skipped"), "the records written anew are Capforge's own")
    }
}
