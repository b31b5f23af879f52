import CapforgeCore
import Foundation
@testable import Burn
import Captions
import Media
import Testing

/// The notice policy and the font preflight, on scripts alone (no video).
@Suite struct BurnScriptTests {
    @Test func alwaysAddsTheStyleSheetsNoticeStyleAndAnEventSpanningTheVideo() throws {
        let script = testScript(cues: [("0:00:01.00", "0:00:02.00", "Hi")]).replacingOccurrences(of: "Style: Notice", with: "Style: Other")
        let burn = BurnIn(input: "in.mp4", output: "out.mp4", script: ASSDocument(parsing: script), styleSheet: try shippedStyleSheet(),
                          options: BurnOptions(notice: .always, noticeText: "Basic {quality}"), outputPolicy: OutputPolicy(ledgers: []))
        let prepared = burn.renderedScript
        // Styles/default.style's Notice (30 px, box, top left, for 1080 lines) scaled to the script's 180.
        let notice = try #require(prepared.styles.first { $0.isNotice })
        #expect(notice["Fontsize"] == "5" && notice["BorderStyle"] == "3" && notice["Alignment"] == "7" && notice["MarginL"] == "7")
        #expect(prepared.events.filter(\.isNotice).count == 1)
        #expect(prepared.lines.contains("Dialogue: 1,0:00:00.00,99:59:59.99,Notice,,0,0,0,,Basic \u{FF5B}quality\u{FF5D}"))
        #expect(prepared.events.count == 2)
    }

    @Test func autoStretchesTheScriptsNoticeAndNeverRemovesIt() throws {
        let script = ASSDocument(parsing: testScript(cues: [("0:00:01.00", "0:00:02.00", "Hi")], noticeUntil: "0:00:03.00"))
        let styles = try shippedStyleSheet()
        let auto = BurnIn(input: "", output: "", script: script, styleSheet: styles, outputPolicy: OutputPolicy(ledgers: [])).renderedScript
        #expect(auto.events.filter(\.isNotice).count == 1)
        #expect(auto.lines[auto.events[0].line].hasPrefix("Dialogue: 1,0:00:00.00,99:59:59.99,Notice,"))
        let never = BurnIn(input: "", output: "", script: script, styleSheet: styles, options: BurnOptions(notice: .never), outputPolicy: OutputPolicy(ledgers: [])).renderedScript
        #expect(never.events.map(\.text) == ["Hi"])
        let none = ASSDocument(parsing: testScript(cues: [("0:00:01.00", "0:00:02.00", "Hi")]))
        let quiet = BurnIn(input: "", output: "", script: none, styleSheet: styles, outputPolicy: OutputPolicy(ledgers: [])).renderedScript
        #expect(quiet.events.allSatisfy { !$0.isNotice })
    }

    @Test func eventTextDropsOverridesAndLineBreaksAndFindsFontOverrides() {
        let text = ASSEventText("{\\an8\\fnWenQuanYi Micro Hei}你好\\N{\\i1}world\\hok{\\c&H00FF00&}!")
        #expect(text.visible == "你好 world ok!")
        #expect(text.lines == ["你好", "world\u{00A0}ok!"])
        #expect(text.fontOverrides == ["WenQuanYi Micro Hei"])
        #expect(text.pieces.map(\.raw).joined() == "{\\an8\\fnWenQuanYi Micro Hei}你好\\N{\\i1}world\\hok{\\c&H00FF00&}!")
        #expect(ASSEventText("a\u{2060}\\\u{2060}b").drawnCharacters == ["a", "\\", "b"])
        // As in libass, an unclosed block runs to the end of the text and draws nothing.
        #expect(ASSEventText("ok {\\fs20 not shown").visible == "ok ")
        // libass draws \{ and \} as braces.
        #expect(ASSEventText("a\\{x\\}b").lines == ["a{x}b"])
        // libavcodec's text decoders leave a caption's braces bare and put styling in {\…}.
        #expect(ASSEventText(decodedText: "{\\i1}a{x}b{\\i0} }").lines == ["a{x}b }"])
    }

    @Test func fontsCoverLatinGreekCyrillicAndCJKOnThisMachine() throws {
        let script = testScript(cues: [("0:00:01.00", "0:00:02.00", "café naïve Ωμέγα Привет 你好 こんにちは 안녕")])
        #expect(try BurnIn(input: "", output: "", script: ASSDocument(parsing: script), styleSheet: try shippedStyleSheet(), options: BurnOptions(notice: .always), outputPolicy: OutputPolicy(ledgers: [])).checkFonts().isEmpty)
    }

    @Test func uncoveredCharactersAreAnErrorUnlessAllowed() throws {
        // Supplementary private-use characters are in no distributed font.
        let script = testScript(cues: [("0:00:01.00", "0:00:02.00", "ok \u{F0000}\u{F0001} ok")])
        let strict = BurnIn(input: "", output: "", script: ASSDocument(parsing: script), styleSheet: try shippedStyleSheet(), outputPolicy: OutputPolicy(ledgers: []))
        #expect(throws: BurnError.missingGlyphs(characters: ["\u{F0000}", "\u{F0001}"], fonts: ["DejaVu Sans"])) {
            try strict.checkFonts()
        }
        let message = String(describing: BurnError.missingGlyphs(characters: ["\u{F0000}"], fonts: ["DejaVu Sans"]))
        #expect(message.contains("U+F0000") && message.contains("fonts-noto-core") && message.contains("fonts-wqy-microhei"))
        let lenient = BurnIn(input: "", output: "", script: ASSDocument(parsing: script), styleSheet: try shippedStyleSheet(), options: BurnOptions(allowMissingGlyphs: true), outputPolicy: OutputPolicy(ledgers: []))
        #expect(try lenient.checkFonts() == [.missingGlyphs(characters: ["\u{F0000}", "\u{F0001}"])])
    }
}
