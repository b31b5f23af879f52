import CapforgeCore
@testable import Captions
import Foundation
import Testing

/// TTML written (IMSC 1.1 Text, EBU-TT-D) and read (any TTML timing the profiles allow), and
/// hostile TTML refused by line.
@Suite struct TTMLTests {
    static func transcript(_ tier: Tier = .modern) -> Transcript {
        Transcript(language: .english, words: [Word(text: "x", start: 0, end: 1, confidence: 1, tier: tier, engine: "e")], duration: 10)
    }

    @Test func writtenTTMLReadsBackWithItsTextEscaped() throws {
        let cues = [Cue(start: 1000, end: 2500, lines: ["Fish & chips <now>", "\"quoted\"\u{0007}"]), Cue(start: 3_600_000, end: 3_601_040, lines: ["An hour in"])]
        for profile in [TTMLWriter.Profile.imsc11Text, .ebuTTD] {
            let xml = TTMLWriter(cues: cues, transcript: Self.transcript(), profile: profile, frameRate: 29.97).render()
            let read = try SubtitleReader.read(Data(xml.utf8))
            #expect(read.format == .ttml)
            #expect(read.cues.map(\.lines) == [["Fish & chips <now>", "\"quoted\""], ["An hour in"]])
            #expect(read.cues.map(\.start) == [1000, 3_600_000] && read.cues.map(\.end) == [2500, 3_601_040])
        }
        let imsc = TTMLWriter(cues: cues, transcript: Self.transcript(), profile: .imsc11Text, frameRate: 29.97).render()
        #expect(imsc.contains("ttp:frameRate=\"30\" ttp:frameRateMultiplier=\"1000 1001\""))
        #expect(TTMLWriter.frameRate(25)! == (25, nil) && TTMLWriter.frameRate(23.976)! == (24, "1000 1001"))
    }

    @Test func everyTimeExpressionAndTimeContainment() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <tt xmlns="http://www.w3.org/ns/ttml" xmlns:ttp="http://www.w3.org/ns/ttml#parameter" ttp:frameRate="25" ttp:tickRate="10000000">
        <!-- <p begin="9s" end="10s">a comment</p> -->
        <body begin="10s"><div begin="00:00:01.000">
        <p begin="00:00:01:05" end="00:00:02:00">Frames</p>
        <p begin="2.5s" dur="500ms">Offset and <span>dur</span></p>
        <p begin="40000000t" end="50000000t">Ticks<br/>two lines</p>
        <p begin="1m" end="61s">   spaced
           out   </p>
        <p begin="2s" end="3s"></p>
        </div></body></tt>
        """
        let cues = try SubtitleReader.read(Data(xml.utf8)).cues
        #expect(cues.map(\.start) == [12_200, 13_500, 15_000, 71_000])
        #expect(cues.map(\.end) == [13_000, 14_000, 16_000, 72_000])
        #expect(cues.map(\.lines) == [["Frames"], ["Offset and dur"], ["Ticks", "two lines"], ["spaced out"]])
    }

    @Test func hostileTTMLIsRefusedWithALine() {
        let cases: [(String, String)] = [
            ("<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><p begin=\"1s\">never ends</p></body></tt>", "no end"),
            ("<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><p begin=\"soon\" end=\"2s\">x</p></body></tt>", "cannot read the time"),
            ("<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><p begin=\"3s\" end=\"2s\">x</p></body></tt>", "ends before it starts"),
            ("<tt><body><p begin=\"1s\" end=\"2s\">unclosed</body></tt>", "not well-formed"),
            ("<?xml version=\"1.0\"?><notTT/>", "a <tt> element"),
        ]
        for (xml, said) in cases {
            #expect { try SubtitleReader.read(Data(xml.utf8), format: .ttml) } throws: { "\($0)".contains(said) }
        }
        // Entities that expand without end must not take the machine with them.
        let laughs = "<?xml version=\"1.0\"?><!DOCTYPE tt [<!ENTITY a \"aaaaaaaaaa\">" + (1...9).map { "<!ENTITY \(Character(UnicodeScalar(97 + $0)!)) \"" + String(repeating: "&\(Character(UnicodeScalar(96 + $0)!));", count: 10) + "\">" }.joined()
            + "]><tt xmlns=\"http://www.w3.org/ns/ttml\"><body><p begin=\"1s\" end=\"2s\">&j;</p></body></tt>"
        #expect(throws: (any Error).self) { try SubtitleReader.read(Data(laughs.utf8), format: .ttml) }
    }

    @Test func aTTMLFileIsRetimedInPlace() throws {
        let xml = TTMLWriter(cues: [Cue(start: 1000, end: 2000, lines: ["One"]), Cue(start: 3000, end: 4000, lines: ["Two"])],
                             transcript: Self.transcript(), profile: .ebuTTD, frameRate: nil).render()
        let file = try RetimableSubtitles(data: Data(xml.utf8), format: .ttml)
        #expect(file.entries.map(\.text) == ["One", "Two"])
        let out = String(decoding: try file.retimed([(1500, 2500), nil]), as: UTF8.self)
        #expect(out.contains("begin=\"00:00:01.500\" end=\"00:00:02.500\"") && !out.contains("Two"))
        #expect(try SubtitleReader.read(Data(out.utf8)).cues.map(\.lines) == [["One"]])
        let contained = "<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><div begin=\"5s\"><p begin=\"1s\" end=\"2s\">x</p></div></body></tt>"
        #expect { try RetimableSubtitles(data: Data(contained.utf8), format: .ttml) } throws: { "\($0)".contains("put begin and end on each <p>") }
    }
}
