import Foundation
@testable import Burn
import Media
import Testing

/// The notice policy and the font preflight, on scripts alone (no video).
@Suite struct BurnScriptTests {
    @Test func alwaysAddsATopNoticeStyleAndEventSpanningTheVideo() {
        let script = testScript(cues: [("0:00:01.00", "0:00:02.00", "Hi")]).replacingOccurrences(of: "Style: Notice", with: "Style: Other")
        let burn = BurnIn(input: "in.mp4", output: "out.mp4", assScript: script, options: BurnOptions(notice: .always, noticeText: "Basic {quality}"), outputPolicy: .capforgeState)
        let prepared = SubtitleScript(burn.renderedScript)
        let notice = prepared.styles.first { $0.name == "Notice" }
        #expect(notice != nil)
        #expect(prepared.lines.contains { $0.hasPrefix("Style: Notice,DejaVu Sans,5,") && $0.contains(",3,1,0,8,") })
        #expect(prepared.noticeEvents.count == 1)
        #expect(prepared.lines.contains("Dialogue: 1,0:00:00.00,99:59:59.99,Notice,,0,0,0,,Basic \u{FF5B}quality\u{FF5D}"))
        #expect(prepared.events.count == 2)
    }

    @Test func autoStretchesTheScriptsNoticeAndNeverRemovesIt() {
        let script = testScript(cues: [("0:00:01.00", "0:00:02.00", "Hi")], noticeUntil: "0:00:03.00")
        let auto = SubtitleScript(BurnIn(input: "", output: "", assScript: script, outputPolicy: .capforgeState).renderedScript)
        #expect(auto.noticeEvents.count == 1)
        #expect(auto.lines[auto.noticeEvents[0].line].hasPrefix("Dialogue: 1,0:00:00.00,99:59:59.99,Notice,"))
        let never = SubtitleScript(BurnIn(input: "", output: "", assScript: script, options: BurnOptions(notice: .never), outputPolicy: .capforgeState).renderedScript)
        #expect(never.noticeEvents.isEmpty)
        #expect(never.events.map(\.text) == ["Hi"])
        let none = testScript(cues: [("0:00:01.00", "0:00:02.00", "Hi")])
        #expect(SubtitleScript(BurnIn(input: "", output: "", assScript: none, outputPolicy: .capforgeState).renderedScript).noticeEvents.isEmpty)
    }

    @Test func eventTextDropsOverridesAndLineBreaksAndFindsFontOverrides() {
        let text = EventText("{\\an8\\fnWenQuanYi Micro Hei}你好\\N{\\i1}world\\hok{\\c&H00FF00&}!")
        #expect(text.visible == "你好 world ok!")
        #expect(text.fontOverrides == ["WenQuanYi Micro Hei"])
        #expect(EventText("a\u{2060}\\\u{2060}b").drawnCharacters == ["a", "\\", "b"])
    }

    @Test func fontsCoverLatinGreekCyrillicAndCJKOnThisMachine() throws {
        let script = testScript(cues: [("0:00:01.00", "0:00:02.00", "café naïve Ωμέγα Привет 你好 こんにちは 안녕")])
        #expect(try BurnIn(input: "", output: "", assScript: script, options: BurnOptions(notice: .always), outputPolicy: .capforgeState).checkFonts().isEmpty)
    }

    @Test func uncoveredCharactersAreAnErrorUnlessAllowed() throws {
        // Supplementary private-use characters are in no distributed font.
        let script = testScript(cues: [("0:00:01.00", "0:00:02.00", "ok \u{F0000}\u{F0001} ok")])
        let strict = BurnIn(input: "", output: "", assScript: script, outputPolicy: .capforgeState)
        #expect(throws: BurnError.missingGlyphs(characters: ["\u{F0000}", "\u{F0001}"], fonts: ["DejaVu Sans"])) {
            try strict.checkFonts()
        }
        let message = String(describing: BurnError.missingGlyphs(characters: ["\u{F0000}"], fonts: ["DejaVu Sans"]))
        #expect(message.contains("U+F0000") && message.contains("fonts-noto-core") && message.contains("fonts-wqy-microhei"))
        let lenient = BurnIn(input: "", output: "", assScript: script, options: BurnOptions(allowMissingGlyphs: true), outputPolicy: .capforgeState)
        #expect(try lenient.checkFonts() == [.missingGlyphs(characters: ["\u{F0000}", "\u{F0001}"])])
    }
}
