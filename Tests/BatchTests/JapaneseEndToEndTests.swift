import CapforgeCore
import Captions
import Foundation
import Media
import TestSupport
import Testing

/// The Japanese fixture through the real tool with Whisper base: captions by the Japanese
/// guide's rules, laid out in whole words, and an English translation of it.
@Suite(.serialized, .timeLimit(.minutes(30)))
struct JapaneseEndToEndTests {
    @Test func japaneseCaptionsKeepThirteenCharactersAndWholeWordsAndTranslate() throws {
        let folder = try scratchFolder("japanese")
        defer { try? FileManager.default.removeItem(at: folder) }
        try copyFixture("japanese.mp4", to: folder)
        let run = try CLI().run(["caption", folder.path, "--translate", "--also-original", "--formats", "srt,json", "--json"])
        #expect(run.status == 0, "\(run.stderr)")

        let japanese = try SubtitleReader.read(fileAt: folder.appendingPathComponent("japanese.ja.srt"))
        let profile = CaptionProfile.forLanguage(Language("ja")!)
        #expect(profile.name == "netflix-ja")
        let lines = japanese.cues.flatMap(\.lines)
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(profile.length(of: line) <= 13, "\(line)")
            #expect(!"、。」）！？".contains(line.first!), "a line starts with closing punctuation: \(line)")
        }
        // The fixture's words, which a character-by-character layout splits (図書館, 日本語,
        // 勉強, 言葉, 大切, 友達, 一緒, 映画): no line or cue ends inside one that Whisper wrote.
        let reference = try String(contentsOf: CLI.fixtures.appendingPathComponent("japanese.txt"), encoding: .utf8)
        let words = ["図書館", "日本語", "勉強", "言葉", "大切", "友達", "一緒", "映画"].filter { word in lines.joined().contains(word) }
        #expect(words.count >= 5, "Whisper base heard too little of the reference: \(lines)")
        for word in words {
            #expect(lines.contains { $0.contains(word) }, "\(word) is split across lines or cues: \(lines)")
        }
        // Whisper hears the synthetic voice nearly word for word (character error rate).
        let heard = lines.joined().filter { !"、。".contains($0) }
        let said = reference.filter { !"、。\n".contains($0) }
        #expect(Double(WER.editDistance(Array(said), Array(heard))) / Double(said.count) < 0.2, "\(heard)")

        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("japanese.ja.json"))) as! [String: Any]
        let settings = json["settings"] as? [String: Any]
        #expect((settings?["profile"] as? [String: Any])?["name"] as? String == "netflix-ja")

        // The English translation, by the English rules.
        let english = try SubtitleReader.read(fileAt: folder.appendingPathComponent("japanese.en.srt"))
        let text = english.cues.flatMap(\.lines).joined(separator: " ").lowercased()
        #expect(text.contains("japanese") && text.contains("library") && text.contains("friends"), "\(text)")
        let translated = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("japanese.en.json"))) as! [String: Any]
        #expect(translated["translatedFrom"] as? String == "ja")
        #expect(((translated["settings"] as? [String: Any])?["profile"] as? [String: Any])?["name"] as? String == "netflix-en")
    }
}
