@testable import Batch
import CapforgeCore
import Foundation
@testable import Speech
import Testing

/// `--dry-run` says what the run will do: the same language, and an estimate from this
/// machine's history for every way of recognising.
@Suite struct DryRunTests {
    /// Time under modern tier whose transcript came out mixed, under arbitration, and
    /// cross-checked, is each found again for its own kind of plan.
    @Test func everyPlanModeFindsItsOwnHistory() {
        var history = SpeedHistory()
        let runs: [(TierPlan.Mode, TranscriptTier, Bool, Double)] = [(.arbitrate, .mixed, false, 30), (.modern, .mixed, false, 10), (.modern, .modern, true, 34)]
        for (mode, tier, crossChecked, seconds) in runs {
            var result = FileResult(relativePath: "a.mp4", path: "/a.mp4", status: .done, seconds: seconds)
            result.duration = 100
            result.tier = tier
            result.mode = mode
            result.checkedBy = crossChecked ? "base" : nil
            history.record(result, variant: "")
        }
        for (mode, crossChecked, factor) in [(TierPlan.Mode.arbitrate, false, 0.3), (.modern, false, 0.1), (.modern, true, 0.34)] {
            let (found, measured) = history.estimate(mode, crossChecked: crossChecked, variant: "", model: nil, duration: 100)
            #expect(measured && abs(found - 100 * factor) < 1e-9, "\(mode) cross-checked \(crossChecked): \(found), measured \(measured)")
        }
        #expect(history.estimate(TierPlan.Mode.basic, crossChecked: false, variant: "", model: nil, duration: 100).1 == false, "no basic run was recorded")
    }

    /// From three files of a model on, the estimate is a fitted per-file overhead plus a rate,
    /// so that a folder of short files is not priced like one long one; another model's runs
    /// do not count for it.
    @Test func aModelsHistoryFitsItsOverheadAndRate() {
        var history = SpeedHistory()
        // 2 s of overhead and 0.1 s a second: 3 s, 5 s and 32 s for 10, 30 and 300 s.
        for duration in [10.0, 30, 300] {
            var result = FileResult(relativePath: "a.mp4", path: "/a.mp4", status: .done, seconds: 2 + 0.1 * duration)
            result.duration = duration
            result.tier = .modern
            result.mode = .modern
            result.models = ["base"]
            history.record(result, variant: "")
        }
        let (sixty, measured) = history.estimate(.modern, crossChecked: false, variant: "", model: "base", duration: 60)
        #expect(measured && abs(sixty - 8) < 1e-6, "\(sixty)")
        // A model with no history of its own takes the mode's: the same fit here.
        #expect(abs(history.estimate(.modern, crossChecked: false, variant: "", model: "tiny.en", duration: 60).0 - 8) < 1e-6)
    }

    /// A run heard whole, or decoded twice for a glossary, takes other time than the default:
    /// each way is priced by its own history, and the defaults keep the keys of earlier histories.
    @Test func eachWayOfDecodingIsPricedByItsOwnHistory() {
        var settings = BatchSettings()
        #expect(SpeedHistory.variant(of: settings) == "")
        settings.glossary = Glossary(terms: ["Capforge"])
        settings.transcription.onePass = true
        #expect(SpeedHistory.variant(of: settings) == "+one-pass+vocab")
        settings.transcription.chunking = false
        #expect(SpeedHistory.variant(of: settings) == "+whole+vocab")

        var history = SpeedHistory()
        for (variant, seconds) in [("", 10.0), ("+vocab", 20)] {
            var result = FileResult(relativePath: "a.mp4", path: "/a.mp4", status: .done, seconds: seconds)
            (result.duration, result.tier, result.mode, result.models) = (100, .modern, .modern, ["tiny.en"])
            history.record(result, variant: variant)
        }
        #expect(history.estimate(.modern, crossChecked: false, variant: "", model: "tiny.en", duration: 100) == (10, true))
        #expect(history.estimate(.modern, crossChecked: false, variant: "+vocab", model: "tiny.en", duration: 100) == (20, true))
        #expect(history.estimate(.modern, crossChecked: false, variant: "+one-pass", model: "tiny.en", duration: 100).1 == false)
        // PocketSphinx's work is the same whatever Whisper is asked to do.
        var basic = FileResult(relativePath: "b.mp4", path: "/b.mp4", status: .done, seconds: 30)
        (basic.duration, basic.tier, basic.mode) = (100, .basic, .basic)
        history.record(basic, variant: "+vocab")
        #expect(history.estimate(.basic, crossChecked: false, variant: "", model: nil, duration: 100) == (30, true))
    }

    /// A Spanish track that FFmpeg prefers because the English one before it is an audio
    /// description, with neither marked default: the dry run names the language the run then
    /// captions, not the first track's.
    @Test func theDryRunsLanguageIsTheRunsLanguage() throws {
        let folder = try scratchFolder("dry-run-language")
        defer { try? FileManager.default.removeItem(at: folder) }
        let video = folder.appendingPathComponent("described.mkv")
        try #require(try runTool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", CLI.fixtures.appendingPathComponent("dual-language.mkv").path,
                                                    "-map", "0", "-c", "copy", "-disposition:a:0", "visual_impaired", "-disposition:a:1", "0", video.path]) == 0)
        let base = ["caption", video.path, "--model", CLI.models.appendingPathComponent("ggml-base.bin").path, "--tier", "modern", "--formats", "json"]
        let dry = try CLI().run(base + ["--dry-run"], timeout: 600)
        #expect(dry.status == 0 && dry.stdout.contains("language es"), "\(dry.stdout)")
        let run = try CLI().run(base)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("described.es.json").path), "\(run.stdout)")
        // base's calibration was measured on English speech: for Spanish the run says so.
        #expect(run.stdout.contains("the confidence of whisper/base was calibrated on English speech only: for 'es'"), "\(run.stdout)")
    }

    /// `--model` takes the names `models list` shows, the list says which languages each model
    /// takes, and the dry run names the model each file will run (and its cross-checker).
    @Test func modelsByNameAndTheModelEachFileWillRun() throws {
        let video = CLI.fixtures.appendingPathComponent("librivox.mp4").path
        let tiny = try CLI().run(["caption", video, "--model", "tiny.en", "--dry-run"], timeout: 600)
        #expect(tiny.status == 0 && tiny.stdout.contains("language en, tier modern (tiny.en on capforge), about"), "\(tiny.stdout)\(tiny.stderr)")
        // Only libwhisper decodes with a beam: asking for one runs it there, unasked.
        let beam = try CLI().run(["caption", video, "--model", "tiny.en", "--beam", "2", "--dry-run"], timeout: 600)
        #expect(beam.status == 0 && beam.stdout.contains("language en, tier modern (tiny.en), about"), "\(beam.stdout)\(beam.stderr)")
        let checked = try CLI().run(["caption", video, "--model", "base", "--cross-check", "tiny.en", "--dry-run"], timeout: 600)
        #expect(checked.status == 0 && checked.stdout.contains("tier modern (base on capforge, cross-checked by tiny.en)"), "\(checked.stdout)\(checked.stderr)")
        // With base installed too, English goes to base unless tiny.en is named, and the list says so.
        let listed = try CLI().run(["models", "list"], timeout: 600)
        #expect(listed.stdout.contains("used only when named (--model tiny.en)") && listed.stdout.contains("used for 99 languages, en,"), "\(listed.stdout)")
        // A basic engine whose language base covers too says when it is heard instead.
        #expect(listed.stdout.contains("stands in for base on ko where a chunk fails, or where base writes too few words"), "\(listed.stdout)")
        let unknown = try CLI().run(["caption", video, "--model", "tiny", "--dry-run"], timeout: 600)
        #expect(unknown.status != 0 && unknown.stderr.contains("--model takes an installed Whisper model's name (base, tiny.en)"), "\(unknown.stderr)")
    }

    /// Folders give up AIFF and MXF files like any other media; what a scan leaves out for its
    /// extension is counted in a warning that names the way to take it (`--include-ext`), and
    /// what is plainly not media (Capforge's outputs, documents) is not counted.
    @Test func folderScansTakeAIFFAndMXFAndCountWhatTheyLeaveOut() throws {
        let folder = try scratchFolder("dry-run-extensions")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = CLI.fixtures.appendingPathComponent("librivox-0880.mkv").path
        #expect(try runTool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", source, "-vn", folder.appendingPathComponent("reading.aiff").path]) == 0)
        // MXF holds video first, as broadcast archives do.
        #expect(try runTool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=320x240:r=25", "-i", source,
                                                 "-map", "0:v", "-map", "1:a", "-shortest", "-c:v", "mpeg2video", "-c:a", "pcm_s16le", "-ar", "48000",
                                                 folder.appendingPathComponent("archive.mxf").path]) == 0)
        for name in ["notes.pdf", "take1.dat", "take2.dat", "clip.mod", "reading.en.srt"] {
            try Data("x".utf8).write(to: folder.appendingPathComponent(name))
        }
        let dry = try CLI().run(["caption", folder.path, "--dry-run"], timeout: 600)
        #expect(dry.stdout.contains("archive.mxf: 0:0") && dry.stdout.contains("reading.aiff: 0:0"), "\(dry.stdout)")
        #expect(dry.stdout.contains("2 file(s), estimated"))
        #expect(dry.stdout.contains("warning: 3 file(s) in the folders were not captioned, their extension is not one Capforge scans for (.dat 2, .mod 1); name a file to caption it, or add --include-ext dat,mod"), "\(dry.stdout)")
        let included = try CLI().run(["caption", folder.path, "--dry-run", "--include-ext", ".DAT"], timeout: 600)
        #expect(included.stdout.contains("take1.dat: cannot be read") && included.stdout.contains("4 file(s), estimated"), "\(included.stdout)")
        #expect(included.stdout.contains("warning: 1 file(s) in the folders were not captioned") && included.stdout.contains("(.mod 1)"))
    }

    /// `--dry-run --force` says the current file will be redone and counts it as work; without
    /// `--force` it would be skipped and costs nothing.
    @Test func aForcedDryRunCountsCurrentFilesAsWork() throws {
        let folder = try scratchFolder("dry-run-force")
        defer { try? FileManager.default.removeItem(at: folder) }
        try copyFixture("librivox-0880.mkv", to: folder)
        #expect(try CLI().run(["caption", folder.path, "--formats", "srt"]).status == 0)
        let dry = try CLI().run(["caption", folder.path, "--formats", "srt", "--dry-run"], timeout: 600)
        #expect(dry.stdout.contains("(current: would be skipped)") && dry.stdout.contains("estimated 0:00 of work"), "\(dry.stdout)")
        let forced = try CLI().run(["caption", folder.path, "--formats", "srt", "--dry-run", "--force"], timeout: 600)
        #expect(forced.stdout.contains("(current, redone: --force)") && !forced.stdout.contains("would be skipped"), "\(forced.stdout)")
        #expect(!forced.stdout.contains("estimated 0:00 of work"), "\(forced.stdout)")
    }
}

/// Before any history, the dry run times the model itself on 30 s of the first of its files,
/// and after a run it estimates from that run.
@Suite(.serialized, .timeLimit(.minutes(20)))
struct DryRunProbeTests {
    /// A tool run with its own state (no history), and models limited to `models`.
    func cli(state folder: URL, models: [String]? = nil) throws -> CLI {
        var cli = CLI()
        cli.environment["XDG_STATE_HOME"] = folder.appendingPathComponent("state").path
        if let models {
            let store = folder.appendingPathComponent("models")
            try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
            let installed = try FileManager.default.contentsOfDirectory(atPath: CLI.models.path)
            for name in models + installed.filter({ $0.contains("silero") }) {
                try FileManager.default.createSymbolicLink(at: store.appendingPathComponent(name), withDestinationURL: CLI.models.appendingPathComponent(name))
            }
            cli.environment["CAPFORGE_MODELS"] = store.path
        }
        return cli
    }

    /// The history is the machine's: a run into one output folder prices a dry run into another.
    @Test func aColdDryRunTimesTheModelAndAWarmOneUsesTheHistory() throws {
        let folder = try scratchFolder("dry-run-probe")
        defer { try? FileManager.default.removeItem(at: folder) }
        let media = folder.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        try copyFixture("librivox.mp4", to: media)
        try copyFixture("librivox-0870.mkv", to: media)
        let tool = try cli(state: folder)
        let options = ["--model", "tiny.en", "--formats", "srt"]
        // Hang guards only: a loaded machine may take minutes.
        let cold = try tool.run(["caption", media.path, "--dry-run"] + options, timeout: 600)
        #expect(cold.status == 0 && cold.stdout.contains("(no history yet: tiny.en on capforge timed on 30 s of the first of its files)"), "\(cold.stdout)")
        #expect(!cold.stdout.contains("about 0.0 s"), "\(cold.stdout)")
        #expect(listing(media).allSatisfy { !$0.hasSuffix(".srt") }, "a dry run writes no captions")
        #expect(try tool.run(["caption", media.path, "--out", folder.appendingPathComponent("first").path] + options, timeout: 600).status == 0)
        let warm = try tool.run(["caption", media.path, "--dry-run", "--out", folder.appendingPathComponent("second").path] + options, timeout: 600)
        #expect(warm.stdout.contains("(from this machine's history)"), "\(warm.stdout)")
    }

    /// Most real files have untagged audio: the dry run prices them as the run will go, the
    /// language vote of the multilingual model timed with the model English then falls to, or,
    /// with no model to vote, English as the run assumes it; never at default speeds.
    @Test func untaggedAudioIsPricedWithTheLanguageVote() throws {
        let folder = try scratchFolder("dry-run-untagged")
        defer { try? FileManager.default.removeItem(at: folder) }
        let media = folder.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        for name in ["librivox.mp4", "librivox-0870.mkv"] {
            try #require(try runTool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", CLI.fixtures.appendingPathComponent(name).path, "-map", "0",
                                                        "-c", "copy", "-metadata:s:a", "language=und", media.appendingPathComponent(name).path]) == 0)
        }
        let voted = try cli(state: folder.appendingPathComponent("voted"), models: ["ggml-base.bin"])
            .run(["caption", media.path, "--dry-run", "--formats", "srt"], timeout: 600)
        #expect(voted.status == 0 && voted.stdout.contains("language auto, tier decided after detection, priced as English (base on capforge)"), "\(voted.stdout)")
        #expect(voted.stdout.contains("(no history yet: base on capforge with base's language vote timed on 30 s of the first of its files)"), "\(voted.stdout)")
        let assumed = try cli(state: folder.appendingPathComponent("assumed"), models: ["ggml-tiny.en.bin"])
            .run(["caption", media.path, "--dry-run", "--formats", "srt"], timeout: 600)
        #expect(assumed.stdout.contains("English assumed: no multilingual model is installed to detect it (tiny.en on capforge)"), "\(assumed.stdout)")
        #expect(assumed.stdout.contains("(no history yet: tiny.en on capforge timed on 30 s of the first of its files)"), "\(assumed.stdout)")
    }

    /// The probe's estimate is Speech's recognition (TranscriptionTimingTests) and the extraction.
    @Test func theProbeAddsExtractionToRecognition() throws {
        let speech = TranscriptionTiming(load: 0.5, window: 1.0)
        let probe = SpeedProbe(speech: speech, extraction: 0.01)
        let options = TranscriptionOptions()
        #expect(abs(probe.estimate(duration: 300, basic: false, options: options) - (speech.estimate(duration: 300, basic: false, options: options) + 3)) < 1e-9)
        #expect(probe.load == 0.5)
    }
}
