import CapforgeCore
@testable import Captions
import Foundation
import Testing

/// Re-timing keeps every cue of a valid file and changes only the bytes of its time values,
/// written as the file wrote them; times and encodings read from files are checked before use.
@Suite struct RetimingTests {
    /// A document written with `⟨old|new⟩` for each time value: the file as it is, and as it must
    /// read once every cue is shifted by a second. Everything outside the markers must come back
    /// byte for byte.
    struct Shifted {
        let original: String
        let expected: String

        init(_ template: String) {
            var original = "", expected = ""
            for (index, piece) in template.split(separator: "⟨", omittingEmptySubsequences: false).enumerated() {
                guard index > 0 else {
                    original += piece
                    expected += piece
                    continue
                }
                let close = piece.firstIndex(of: "⟩")!
                let times = piece[..<close].split(separator: "|", omittingEmptySubsequences: false)
                original += times[0] + piece[piece.index(after: close)...]
                expected += times[1] + piece[piece.index(after: close)...]
            }
            self.original = original
            self.expected = expected
        }

        /// The file read, shifted by a second, written again.
        func retimed(_ format: SubtitleFormat) throws -> (file: RetimableSubtitles, output: String) {
            let file = try RetimableSubtitles(data: Data(original.utf8), format: format)
            let output = try file.retimed(file.entries.map { ($0.start + 1000, $0.end + 1000) })
            return (file, String(decoding: output, as: UTF8.self))
        }
    }

    /// Every time expression form, attributes in any order, `begin=` inside another attribute and
    /// a foreign namespace's `begin`, CDATA, comments, a processing instruction, a document type,
    /// nested spans, `>` in a value, `p` of another vocabulary in metadata.
    static let ttml = Shifted("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE tt [
          <!-- a <p begin="1s" end="2s"> in the document type -->
        ]>
        <?xml-stylesheet type="text/css" href="begin='1s'.css"?>
        <tt xmlns="http://www.w3.org/ns/ttml" xmlns:ttp="http://www.w3.org/ns/ttml#parameter" xmlns:foo="urn:example:foo"
            ttp:frameRate="30" ttp:frameRateMultiplier="1000 1001" ttp:subFrameRate="4" ttp:tickRate="10000000">
        <head><metadata><foo:p begin="0s" end="1s">not a cue</foo:p><foo:note><![CDATA[<p begin="3s" end="4s">]]></foo:note></metadata></head>
        <body>
        <!-- <p begin="9s" end="10s">commented out</p> -->
        <div xml:lang="en">
        <p end="⟨20000000t|30000000t⟩" title="begin='5s' end='6s'" foo:begin="7s" begin="⟨12440000t|22440000t⟩">Ticks, end first</p>
        <p begin="⟨00:00:02:15|00:00:03:15⟩" dur="⟨45f|45f⟩"><![CDATA[a <p begin="1s"> in CDATA & more]]> and <span foo:x="a>b" begin="0.5s">nested <span>spans</span></span><br/>second line</p>
        <p begin='⟨00:00:05.250|00:00:06.250⟩' end = '⟨7.5s|8.5s⟩'>single quotes<?pi begin="1s"?></p>
        <p begin="⟨1500ms|2500ms⟩" end="⟨0.05m|0.06667m⟩">milliseconds and minutes</p>
        <p begin="⟨00:00:01:10.2|00:00:02:10.2⟩" end="⟨00:00:01:20|00:00:02:20⟩">sub-frames</p>
        <p begin="⟨0.001h|0.0012778h⟩" end="⟨5s|6s⟩">hours</p>
        <p begin="⟨2s|3s⟩" end="⟨4s|5s⟩" dur="⟨1s|1s⟩">the earlier of end and dur</p>
        </div>
        </body>
        </tt>
        <!-- begin="1s" after the document -->

        """)

    @Test func ttmlKeepsEveryCueAndEveryByteButItsTimesInTheirOwnForms() throws {
        let (file, output) = try Self.ttml.retimed(.ttml)
        #expect(file.entries.map(\.start) == [1244, 2501, 5250, 1500, 1350, 3600, 2000])
        #expect(file.entries.map(\.end) == [2000, 4002, 7500, 3000, 1667, 5000, 3000])
        #expect(file.entries[1].text == "a <p begin=\"1s\"> in CDATA & more and nested spans second line")
        #expect(output == Self.ttml.expected)
        #expect(try SubtitleReader.read(Data(output.utf8)).cues.count == 7)
    }

    @Test func webVTTKeepsNotesStylesAndRegionsEvenWhereTheyHoldTimes() throws {
        let vtt = Shifted("""
            WEBVTT - with notes

            NOTE a note that names a time
            00:00:01.000 --> 00:00:02.000 is not a cue

            STYLE
            ::cue { color: lime }

            REGION
            id:fred width:40%

            intro
            ⟨00:00:01.000|00:00:02.000⟩ --> ⟨00:00:02.500|00:00:03.500⟩ region:fred align:start
            Fish &amp; chips

            NOTE
            00:00:05.000 --> 00:00:06.000

            ⟨00:00:03.000|00:00:04.000⟩ --> ⟨00:00:04.500|00:00:05.500⟩
            <v Bob>Two</v>

            """)
        let (file, output) = try vtt.retimed(.vtt)
        #expect(file.entries.map(\.text) == ["Fish & chips", "Two"])
        #expect(output == vtt.expected)
    }

    @Test func assIsRetimedWhereverItsFormatLinePutsStartAndEnd() throws {
        let ass = Shifted("""
            [Script Info]
            ScriptType: v4.00+

            [Events]
            Format: Layer, End, Style, Start, Name, MarginL, MarginR, MarginV, Effect, Text
            Dialogue: 0,⟨0:00:03.00|0:00:04.00⟩,Default,⟨0:00:01.50|0:00:02.50⟩,,0,0,0,,{\\b1}End before Start{\\b0}, with commas
            Comment: 0,0:00:09.00,Default,0:00:08.00,,0,0,0,,a comment
            Dialogue: 0,⟨0:00:05.25|0:00:06.25⟩,Default,⟨0:00:04.00|0:00:05.00⟩,,0,0,0,,Second\\Nline

            """)
        let (file, output) = try ass.retimed(.ass)
        #expect(file.entries.map(\.start) == [1500, 4000] && file.entries.map(\.end) == [3000, 5250])
        #expect(output == ass.expected)
    }

    @Test func ttmlTimedInTicksKeepsEveryCue() throws {
        let cues = (0..<17).map { "<p begin=\"\(124_400_000 + $0 * 30_000_000)t\" end=\"\(144_400_000 + $0 * 30_000_000)t\">cue \($0)</p>" }
        let xml = "<?xml version=\"1.0\"?>\n<tt xmlns=\"http://www.w3.org/ns/ttml\" xmlns:ttp=\"http://www.w3.org/ns/ttml#parameter\" ttp:tickRate=\"10000000\">"
            + "<body><div>\n" + cues.joined(separator: "\n") + "\n</div></body></tt>\n"
        let file = try RetimableSubtitles(data: Data(xml.utf8), format: .ttml)
        #expect(file.entries.map(\.start) == (0..<17).map { 12_440 + $0 * 3000 })
        let out = String(decoding: try file.retimed(file.entries.map { ($0.start - 440, $0.end - 440) }), as: UTF8.self)
        #expect(out == xml.replacing(/(\d+)t"/) { match in "\(Int(match.output.1)! - 4_400_000)t\"" })
    }

    @Test func timesOnContainersOrWithoutABeginAreRefusedByLine() {
        let cases: [(String, String)] = [
            ("<tt xmlns=\"http://www.w3.org/ns/ttml\"><body>\n<div begin=\"5s\"><p begin=\"1s\" end=\"2s\">x</p></div></body></tt>", "line 2: times on <div>"),
            ("<tt xmlns=\"http://www.w3.org/ns/ttml\"><body>\n\n<p end=\"2s\">x</p></body></tt>", "line 3: a <p> without begin"),
            ("<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><div timeContainer=\"seq\"><p begin=\"1s\" end=\"2s\">x</p></div></body></tt>", "timeContainer"),
            ("<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><p begin=\"1s\" end=\"3s\">a<p begin=\"1s\" end=\"2s\">x</p></p></body></tt>", "inside the <p>"),
        ]
        for (xml, said) in cases {
            #expect { try RetimableSubtitles(data: Data(xml.utf8), format: .ttml) } throws: { "\($0)".contains(said) }
        }
    }

    /// Linear in the document: a scan that counted lines from the start for each `p` took
    /// minutes at 30,000.
    @Test func aHundredThousandParagraphsAreReadInOnePass() throws {
        let body = (0..<100_000).map { "<p begin=\"\($0)s\" end=\"\($0).5s\">cue \($0)</p>" }.joined(separator: "\n")
        let xml = "<tt xmlns=\"http://www.w3.org/ns/ttml\">\n<!-- a comment -->\n<body><div>\n" + body + "\n</div></body></tt>\n"
        let file = try RetimableSubtitles(data: Data(xml.utf8), format: .ttml)
        #expect(file.entries.count == 100_000 && file.entries.last?.start == 99_999_000)
        #expect(file.entries.last?.text == "cue 99999")
    }

    /// Namespaces are looked up where the scan is, not by walking the open elements: 50,000
    /// nested spans, each declaring a prefix, are read in one pass too.
    @Test func deepNestingIsReadInOnePass() throws {
        let depth = 50_000
        let xml = "<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><p begin=\"1s\" end=\"2s\">"
            + (0..<depth).map { "<span xmlns:n\($0)=\"urn:\($0)\">" }.joined() + "deep" + String(repeating: "</span>", count: depth) + "</p></body></tt>"
        let file = try RetimableSubtitles(data: Data(xml.utf8), format: .ttml)
        #expect(file.entries.map(\.text) == ["deep"])
    }

    // MARK: encodings

    @Test func anISO88591TTMLIsReadAndWrittenBackInISO88591() throws {
        func latin1(begin: String, end: String) -> [UInt8] {
            Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><p begin=\"\(begin)\" end=\"\(end)\">caf".utf8)
                + [0xE9] + Array("</p></body></tt>\n".utf8)
        }
        let bytes = latin1(begin: "1s", end: "2s")
        #expect(try SubtitleReader.read(Data(bytes)).cues.map(\.lines) == [["café"]])
        let file = try RetimableSubtitles(data: Data(bytes), format: .ttml)
        #expect(file.encoding == .latin1 && file.entries.map(\.text) == ["café"])
        #expect([UInt8](try file.retimed([(3000, 4500)])) == latin1(begin: "3s", end: "4.5s"))
    }

    @Test func utf16TTMLWithOrWithoutAByteOrderMarkIsWrittenBackAsItCame() throws {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><p begin=\"1s\" end=\"2s\">café ☕</p></body></tt>\n"
        let shifted = xml.replacingOccurrences(of: "begin=\"1s\" end=\"2s\"", with: "begin=\"2s\" end=\"3s\"")
        func littleEndian(_ text: String) -> [UInt8] { text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
        func bigEndian(_ text: String) -> [UInt8] { text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
        for (bytes, again) in [(littleEndian(xml), littleEndian(shifted)), ([0xFE, 0xFF] + bigEndian(xml), [0xFE, 0xFF] + bigEndian(shifted)),
                               ([0xFF, 0xFE] + littleEndian(xml), [0xFF, 0xFE] + littleEndian(shifted))] {
            #expect(try SubtitleReader.read(Data(bytes)).cues.map(\.lines) == [["café ☕"]])
            let file = try RetimableSubtitles(data: Data(bytes), format: .ttml)
            #expect([UInt8](try file.retimed([(2000, 3000)])) == again)
        }
    }

    @Test func anEncodingTheDeclarationNamesButCapforgeDoesNotReadIsRefusedByName() {
        let cases: [([UInt8], String)] = [
            (Array("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><tt/>".utf8), "\"Shift_JIS\", which Capforge does not read"),
            (Array("<?xml version='1.0' encoding='US-ASCII'?><tt>caf".utf8) + [0xE9] + Array("</tt>".utf8), "says US-ASCII, but it holds byte 0xE9"),
            (Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><tt>".utf8) + [0x9B] + Array("</tt>".utf8), "byte 0x9B is a control character"),
            (Array("<?xml version=\"1.0\" encoding=\"UTF-16\"?><tt/>".utf8), "written in 8-bit text"),
        ]
        for (bytes, said) in cases {
            #expect { try SubtitleReader.read(Data(bytes), format: .ttml) } throws: { "\($0)".contains(said) }
        }
    }

    // MARK: what the text holds

    @Test func controlCharactersNamedByReferencesNeverReachTheCues() throws {
        let xml = "<tt xmlns=\"http://www.w3.org/ns/ttml\"><body><p begin=\"1s\" end=\"2s\">a&#x9B;[2Jb&#127;c&#x85;d</p></body></tt>"
        let document = try SubtitleReader.read(Data(xml.utf8), format: .ttml)
        #expect(document.cues.map(\.lines) == [["a[2Jbcd"]])
        #expect(document.warnings.count == 1 && document.warnings[0].contains("3 control character(s)"))
        // XML 1.0 has no references to C0 controls: not well-formed.
        for reference in ["&#x1B;", "&#0;"] {
            let bad = xml.replacingOccurrences(of: "&#x9B;", with: reference)
            #expect { try SubtitleReader.read(Data(bad.utf8), format: .ttml) } throws: { "\($0)".contains("line 1") }
        }
    }

    // MARK: times out of range

    @Test func timesBeyondAThousandHoursOrNotNumbersAreRefusedByLine() {
        let ttml = { (begin: String) in "<tt xmlns=\"http://www.w3.org/ns/ttml\">\n<body>\n<p begin=\"\(begin)\" end=\"2s\">x</p></body></tt>" }
        let cases: [(String, SubtitleFormat, String)] = [
            (ttml("1e300h"), .ttml, "line 3: cannot read the time \"1e300h\""),
            (ttml("99999999999h"), .ttml, "line 3: the time \"99999999999h\" of <p> is more than 1000 hours"),
            (ttml("infs"), .ttml, "cannot read the time"),
            (ttml("nan:00:00"), .ttml, "cannot read the time"),
            (ttml("00:00:01:999999999999"), .ttml, "more than 1000 hours"),
            ("1\n99999999999:00:00,000 --> 99999999999:00:01,000\nx\n", .srt, "line 2: cannot read the timing"),
            ("1\n00:00:00,000 --> 9999:00:00,000\nx\n", .srt, "line 2: the time \"9999:00:00,000\" is more than 1000 hours"),
            ("WEBVTT\n\n00:00.000 --> 1000:00:00.001\nx\n", .vtt, "line 3: the time \"1000:00:00.001\" is more than 1000 hours"),
            ("[Script Info]\n\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\nDialogue: 0,0:00:00.00,9999:00:00.00,Default,,0,0,0,,x\n",
             .ass, "line 5: the End time \"9999:00:00.00\" is more than 1000 hours"),
        ]
        for (text, format, said) in cases {
            #expect { try SubtitleReader.read(Data(text.utf8), format: format) } throws: { "\($0)".contains(said) }
        }
    }

    /// A shot-change cache is a file too: a time no video has is left out, never converted.
    @Test func shotChangesNoVideoHasAreLeftOut() throws {
        let timing = ShotTiming(changes: [1e308, -5, .nan, .infinity, 2.5], rules: try CueRules(profile: .netflixEnglish, framesPerSecond: 25))
        #expect(timing.changes == [2500])
    }

    // MARK: frame rates

    @Test func frameRatesNobodyUsesFallBackAndAreSaid() throws {
        for rate in [0.001, 1, 5, 121, 1000, 1e300, .infinity, .nan] { #expect(FrameTiming.plausible(rate) == nil, "\(rate)") }
        for rate in [10, 23.976, 25, 59.94, 120] { #expect(FrameTiming.plausible(rate) == rate) }
        // A two-frame gap at the fallback rate, never two seconds.
        let rules = try CueRules(profile: .netflixEnglish, framesPerSecond: FrameTiming.plausible(1))
        #expect(rules.timing.chainedGap == 80)
        let video = LintVideo(name: "slides.mp4", framesPerSecond: 1, duration: 60)
        #expect(video.framesPerSecond == nil && video.frameRateWarning?.contains("judged at 25 fps") == true)
        // A TTML's own frame rate only reads its frame times; one out of range is said and not used.
        for (rate, start) in [("1", 1000), ("1000", 1000), ("0.001", 1033), ("1e300", 1033), ("99999999999999999999999", 1033)] {
            let xml = "<tt xmlns=\"http://www.w3.org/ns/ttml\" xmlns:ttp=\"http://www.w3.org/ns/ttml#parameter\" ttp:frameRate=\"\(rate)\">"
                + "<body><p begin=\"00:00:01:01\" end=\"00:00:05:00\">x</p></body></tt>"
            let read = try SubtitleReader.read(Data(xml.utf8), format: .ttml)
            if start == 1033 {
                #expect(read.cues[0].start == 1033 && read.warnings.contains { $0.contains("ttp:frameRate") }, "\(rate)")
            } else {
                #expect(read.cues[0].start == 1000 + 1000 / Int(rate)! && read.warnings.isEmpty, "\(rate)")
            }
        }
    }
}
