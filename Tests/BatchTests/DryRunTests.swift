import Batch
import CapforgeCore
import Foundation
import Speech
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
            history.record(result)
        }
        for (mode, crossChecked, factor) in [(TierPlan.Mode.arbitrate, false, 0.3), (.modern, false, 0.1), (.modern, true, 0.34)] {
            let (found, measured) = history.factor(mode, crossChecked: crossChecked)
            #expect(measured && abs(found - factor) < 1e-9, "\(mode) cross-checked \(crossChecked): \(found), measured \(measured)")
        }
        #expect(history.factor(TierPlan.Mode.basic, crossChecked: false).1 == false, "no basic run was recorded")
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
        let dry = try CLI().run(base + ["--dry-run"], timeout: 60)
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
        let tiny = try CLI().run(["caption", video, "--model", "tiny.en", "--dry-run"], timeout: 60)
        #expect(tiny.status == 0 && tiny.stdout.contains("language en, tier modern (tiny.en), about"), "\(tiny.stdout)\(tiny.stderr)")
        let checked = try CLI().run(["caption", video, "--model", "base", "--cross-check", "tiny.en", "--dry-run"], timeout: 60)
        #expect(checked.status == 0 && checked.stdout.contains("tier modern (base, cross-checked by tiny.en)"), "\(checked.stdout)\(checked.stderr)")
        // With base installed too, English goes to base unless tiny.en is named, and the list says so.
        let listed = try CLI().run(["models", "list"], timeout: 60)
        #expect(listed.stdout.contains("used only when named (--model tiny.en)") && listed.stdout.contains("used for 99 languages, en,"), "\(listed.stdout)")
        let unknown = try CLI().run(["caption", video, "--model", "tiny", "--dry-run"], timeout: 60)
        #expect(unknown.status != 0 && unknown.stderr.contains("--model takes an installed Whisper model's name (base, tiny.en)"), "\(unknown.stderr)")
    }
}
