import CapforgeCore
import Foundation
import Testing
import TestSupport

@testable import Captions

@Suite struct SCCTests {
    static let header = "Scenarist_SCC V1.0\n\n"

    /// Basic characters two to a word, as hex: enough to hand-write files for the reader.
    static func text(_ text: String) -> String {
        let bytes = Array(text.utf8)
        return stride(from: 0, to: bytes.count, by: 2).map { index in
            SCCWriter.hex(CEA608.word(bytes[index], index + 1 < bytes.count ? bytes[index + 1] : 0))
        }.joined(separator: " ")
    }

    static func twice(_ word: UInt16) -> String { SCCWriter.hex(word) + " " + SCCWriter.hex(word) }

    /// The error's message for a file of `body` after the header, or nil when it reads.
    static func failure(_ body: String) -> String? {
        do {
            _ = try SCCReader.read(header + body)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Cues read back match: texts exactly, times within a frame.
    static func expectMatch(_ read: [Cue], _ written: [Cue], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(read.count == written.count, sourceLocation: sourceLocation)
        for (got, want) in zip(read, written) {
            #expect(got.lines == want.lines, sourceLocation: sourceLocation)
            #expect(abs(got.start - want.start) <= 33 && abs(got.end - want.end) <= 33,
                    "\(got.start)–\(got.end) for \(want.start)–\(want.end)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Tables

    @Test func parityAndKnownCodes() {
        #expect(CEA608.withParity(0x48) == 0xC8)  // "H": two ones, so the parity bit is set
        #expect(CEA608.withParity(0x69) == 0xE9)  // "i": four ones
        #expect(CEA608.withParity(0x61) == 0x61)  // "a": three ones already
        #expect(Self.text("Hi") == "c8e9")
        #expect(Self.text("H") == "c880")
        #expect(CEA608.word(.resumeCaptionLoading) == 0x9420)
        #expect(CEA608.word(.eraseNonDisplayedMemory) == 0x94AE)
        #expect(CEA608.word(.endOfCaption) == 0x942F)
        #expect(CEA608.word(.eraseDisplayedMemory) == 0x942C)
        #expect(CEA608.word(.carriageReturn) == 0x94AD)
        #expect(CEA608.preamble(row: 15, indent: 0) == 0x9470)
        #expect(CEA608.preamble(row: 14, indent: 0) == 0x94D0)
        #expect(CEA608.preamble(row: 1, indent: 0) == 0x91D0)
        #expect(CEA608.preamble(row: 11, indent: 4) == 0x1052)
        #expect(CEA608.tabOffset(3) == 0x9723)
        let place = { (first: UInt8, second: UInt8) in CEA608.preamble(first, second).map { [$0.row, $0.indent] } }
        #expect(place(0x14, 0x70) == [15, 0])
        #expect(place(0x13, 0x5E) == [12, 28])
        #expect(place(0x14, 0x4E) == [14, 0])  // white italics
        #expect(CEA608.preamble(0x10, 0x60) == nil)
    }

    @Test func characterSetsRoundTrip() {
        #expect(CEA608.glyphs["é"] == .basic(0x5C))
        #expect(CEA608.glyphs["♪"] == .special(0x37))
        #expect(CEA608.glyphs["ü"] == .extended(set: 0x12, code: 0x25, fallback: 0x75))
        #expect(CEA608.glyphs["ß"] == .extended(set: 0x13, code: 0x34, fallback: 0x73))
        #expect(CEA608.glyphs["*"] == .extended(set: 0x12, code: 0x28, fallback: 0x20))
        #expect(CEA608.glyphs["→"] == nil && CEA608.glyphs["日"] == nil)
        // 96 basic, 15 special (the transparent space is the basic one), 64 extended.
        #expect(CEA608.glyphs.count == 175)
        for (character, glyph) in CEA608.glyphs {
            switch glyph {
            case .basic(let byte): #expect(CEA608.basicCharacter(byte) == character)
            case .special(let code):
                #expect(CEA608.character(0x11, code)?.character == character && CEA608.character(0x11, code)?.replacesPrevious == false)
            case .extended(let set, let code, let fallback):
                #expect(CEA608.character(set, code)?.character == character && CEA608.character(set, code)?.replacesPrevious == true)
                #expect(CEA608.basicCharacter(fallback) != nil)
            }
        }
    }

    @Test func dropFrameTimecodes() throws {
        #expect(try SCCTimecode.frame("00:01:00;02", line: 1) == 1800)
        #expect(try SCCTimecode.frame("00:10:00;00", line: 1) == 17982)
        #expect(try SCCTimecode.frame("00:00:59;29", line: 1) == 1799)
        #expect(try SCCTimecode.frame("01:00:00;00", line: 1) == 107_892)
        #expect(try SCCTimecode.frame("00:01:00:00", line: 1) == 1800)  // non-drop
        #expect(SCCTimecode.dropFrameLabel(1799) == "00:00:59;29")
        #expect(SCCTimecode.dropFrameLabel(1800) == "00:01:00;02")
        #expect(SCCTimecode.dropFrameLabel(17982) == "00:10:00;00")
        #expect(SCCTimecode.dropFrameLabel(107_892) == "01:00:00;00")
        let mismatches = try stride(from: 0, to: 400_000, by: 13).filter {
            try SCCTimecode.frame(SCCTimecode.dropFrameLabel($0), line: 1) != $0
        }
        #expect(mismatches.isEmpty)
        // Drop-frame labels keep to the clock: an hour's label is an hour, to 4 ms.
        #expect(SCCTimecode.milliseconds(frame: 107_892) == 3_599_996)
        #expect(SCCTimecode.frame(milliseconds: 2000) == 60)
        #expect(SCCTimecode.frame(milliseconds: -50) == 0)
    }

    // MARK: Writer

    @Test func writesTheLoadBeforeTheStartAndTheEraseAtTheEnd() {
        let writer = SCCWriter(cues: [Cue(start: 2000, end: 4000, lines: ["Hi"])])
        // Nine words load "Hi" centred on row 15 (column 15: PAC indent 12, then TO3), so the
        // load starts 9 frames before the EOC at frame 60.
        #expect(writer.render() == """
            Scenarist_SCC V1.0

            00:00:01;21\t9420 9420 94ae 94ae 9476 9476 9723 9723 c8e9 942f 942f

            00:00:04;00\t942c 942c

            """)
        #expect(writer.warnings.isEmpty)
    }

    @Test func noCuesIsAHeaderOnly() throws {
        let text = SCCWriter(cues: []).render()
        #expect(text == "Scenarist_SCC V1.0\n")
        #expect(try SCCReader.decode(text) == SCCReading(cues: [], warnings: []))
    }

    @Test func plainTextRoundTrips() throws {
        let cues = [
            Cue(start: 1000, end: 3500, lines: ["Hello there."]),
            Cue(start: 4000, end: 6000, lines: ["Two lines,", "both centred."]),
            Cue(start: 7000, end: 9000, lines: ["Numbers 0-9 & (symbols)? 100%!", "\"Quotes\", $5 @ #1; a/b [ok]"]),
            Cue(start: 10000, end: 13000, lines: ["One", "two", "three", "four"]),
            Cue(start: 600_500, end: 602_000, lines: ["Ten minutes in"]),
            Cue(start: 3_700_000, end: 3_702_000, lines: ["After an hour"]),
        ]
        let writer = SCCWriter(cues: cues)
        let reading = try SCCReader.decode(writer.render())
        #expect(writer.warnings.isEmpty)
        #expect(reading.warnings.isEmpty)
        Self.expectMatch(reading.cues, cues)
    }

    @Test func accentsRoundTripThroughTheExtendedSets() throws {
        let cues = [
            Cue(start: 2000, end: 3000, lines: ["Café, niño, über", "Ça va? À bientôt"]),
            Cue(start: 4000, end: 6000, lines: ["Grüße aus Köln, ¿qué?", "« Où ça ? » — © 2024"]),
            Cue(start: 7000, end: 9000, lines: ["♪♪ la la ♪♪", "Ü É ß ø {x} *"]),
        ]
        let writer = SCCWriter(cues: cues)
        let text = writer.render()
        #expect(writer.warnings.isEmpty)
        // "ü" is sent as "u" then 12 25, which replaces it; the code is doubled like any other.
        #expect(text.contains(" " + Self.twice(0x9225)))
        let reading = try SCCReader.decode(text)
        #expect(reading.warnings.isEmpty)
        Self.expectMatch(reading.cues, cues)
    }

    @Test func charactersOutside608AreReported() throws {
        let cues = [
            Cue(start: 1000, end: 3000, lines: ["Go → there", "日本 ok"]),
            Cue(start: 4000, end: 6000, lines: ["Wait… Māori → here"]),
        ]
        let writer = SCCWriter(cues: cues)
        #expect(writer.warnings == [
            "SCC: 3 character(s) CEA-608 has not, left out: “→” (U+2192) 2 times, first in cue 1 (00:00:01.000); “日” (U+65E5) in cue 1 (00:00:01.000); “本” (U+672C) in cue 1 (00:00:01.000)",
            "SCC: 2 character(s) CEA-608 has not, written as look-alikes: “…” (U+2026) as “...” in cue 2 (00:00:04.000); “ā” (U+101) as “a” in cue 2 (00:00:04.000)",
        ])
        let read = try SCCReader.read(writer.render())
        #expect(read.map(\.lines) == [["Go there", "ok"], ["Wait... Maori here"]])
    }

    @Test func longLinesAreRewrappedAndExtraRowsCut() throws {
        let long = "The quick brown fox jumps over the lazy dog again"
        let wrapped = SCCWriter(cues: [Cue(start: 3000, end: 6000, lines: [long])])
        #expect(wrapped.warnings == ["SCC: 1 cue(s) re-wrapped to fit CEA-608's 32 columns and 4 rows: cue 1 (00:00:03.000), 1 line(s), the longest 49 characters"])
        #expect(try SCCReader.read(wrapped.render()).map(\.lines) == [["The quick brown fox jumps over", "the lazy dog again"]])

        let six = (1...6).map { "This is line number \($0) of six!!" }
        let cut = SCCWriter(cues: [Cue(start: 5000, end: 8000, lines: six)])
        #expect(cut.warnings == ["SCC: 1 cue(s) cut to the 4 rows a caption may use: cue 1 (00:00:05.000) lost “\(six[4]) \(six[5])”"])
        #expect(try SCCReader.read(cut.render()).map(\.lines) == [Array(six.prefix(4))])
    }

    @Test func closeCuesAreDelayedAndReported() throws {
        let cues = [
            Cue(start: 1000, end: 2000, lines: ["Short"]),
            Cue(start: 2000, end: 4000, lines: ["A much longer caption that has", "two full rows of text in it ok"]),
        ]
        let writer = SCCWriter(cues: cues)
        let read = try SCCReader.read(writer.render())
        #expect(read.count == 2)
        Self.expectMatch([read[0]], [cues[0]])
        // Loading 44 words takes 44 frames, and the first caption's EOC leaves only 30.
        #expect(read[1].start > 2400 && abs(read[1].end - 4000) <= 33)
        let shown = Timecode.milliseconds(read[1].start, mark: ".")
        #expect(writer.warnings.count == 1)
        #expect(writer.warnings.allSatisfy { $0.hasPrefix("SCC: 1 caption(s) shown late") && $0.contains(": cue 2 (00:00:02.000) shown \(shown) --> ") })
    }

    @Test func loadsGoOutWhileTheCaptionBeforeIsShown() throws {
        let cues = [
            Cue(start: 1000, end: 4000, lines: ["First caption"]),
            Cue(start: 4333, end: 6000, lines: ["A much longer caption that has", "two full rows of text in it ok"]),
        ]
        let writer = SCCWriter(cues: cues)
        let text = writer.render()
        #expect(writer.warnings.isEmpty)
        // The first caption's erase goes out in the middle of the second's load.
        #expect(text.contains(" " + Self.twice(0x942C) + " "))
        Self.expectMatch(try SCCReader.read(text), cues)
    }

    @Test func overlappingCuesAreReplacedAndReported() throws {
        let cues = [Cue(start: 1000, end: 5000, lines: ["First"]), Cue(start: 3000, end: 6000, lines: ["Second"])]
        let writer = SCCWriter(cues: cues)
        #expect(writer.warnings == [
            "SCC: 1 caption(s) replaced before their end by the next cue, which starts first (pop-on shows one caption at a time): cue 1 (00:00:01.000) shown 00:00:01.001 --> 00:00:03.003",
        ])
        let read = try SCCReader.read(writer.render())
        Self.expectMatch(read, [Cue(start: 1000, end: 3000, lines: ["First"]), cues[1]])
    }

    @Test func randomCuesRoundTripOrAreReportedLate() throws {
        var rng = SeededGenerator(seed: 29_97)
        let words = ["le", "café", "niño", "über", "Ça", "à", "Grüße", "♪", "«oui»", "¿qué?", "the", "caption", "ß", "øre", "{x}", "100%", "—"]
        var cues: [Cue] = []
        var time = 0
        for _ in 0..<300 {
            // Back to back, or a gap of at least 3 frames: a 1-frame gap leaves no room for the erase.
            time += Bool.random(using: &rng) ? 0 : Int.random(in: 100...3000, using: &rng)
            let lines = (0..<Int.random(in: 1...2, using: &rng)).map { _ in
                var line = words.randomElement(using: &rng) ?? ""
                while let word = words.randomElement(using: &rng), line.count + 1 + word.count <= 32, Int.random(in: 0..<6, using: &rng) > 0 {
                    line += " " + word
                }
                return line
            }
            let duration = Int.random(in: 700...4000, using: &rng)
            cues.append(Cue(start: time, end: time + duration, lines: lines))
            time += duration
        }
        let writer = SCCWriter(cues: cues)
        let read = try SCCReader.read(writer.render())
        try #require(read.count == cues.count)
        #expect(read.map(\.lines) == cues.map(\.lines))
        // Within rounding to frames, but for captions sent late, and the one before each, whose
        // erase makes way for the late caption's EOC a frame after its end.
        let late = zip(read, cues).map { SCCTimecode.frame(milliseconds: $0.start) > SCCTimecode.frame(milliseconds: $1.start) }
        for index in cues.indices where !late[index] {
            let slack = index + 1 < cues.count && late[index + 1] ? 50 : 17
            #expect(abs(read[index].start - cues[index].start) <= 17 && abs(read[index].end - cues[index].end) <= slack)
        }
        let count = late.filter { $0 }.count
        #expect(count > 0 && writer.warnings.count == 1 && writer.warnings[0].hasPrefix("SCC: \(count) caption(s) shown late"))
    }

    // MARK: Reader

    @Test func readsPopOnWithEditsAndDoubledCodes() throws {
        let load = [Self.twice(0x9420), Self.twice(0x94AE), Self.twice(0x9470), Self.text("Hix"), Self.twice(0x94A1),
                    "9120", Self.text("there "), Self.twice(0x91AE), Self.text("now"), Self.twice(0x97A2), Self.twice(0x13D0), "9225",
                    Self.twice(CEA608.preamble(row: 11, indent: 28)), Self.text("Too far right, moved left"), Self.twice(0x942F)]
        let text = Self.header + "00:00:01;00\t" + load.joined(separator: " ") + "\n\n00:00:03;00\t" + Self.twice(0x942C) + "\n"
        let reading = try SCCReader.decode(text)
        // Backspace removed "x"; a mid-row code is a space, but not a second one; an extended
        // character at the start of a row (row 12 here) has nothing to replace; text run past
        // the last column moves left where the row has room.
        #expect(reading.cues.map(\.lines) == [["Too far right, moved left", "ü", "Hi there now"]])
        #expect(reading.cues.first?.start == SCCTimecode.milliseconds(frame: 30 + 38) && reading.cues.first?.end == 3003)
        #expect(reading.warnings.isEmpty)
    }

    @Test func readsRollUpAndPaintOn() throws {
        let rollUp = Self.header + """
            00:00:01;00\t\(Self.twice(0x9425)) \(Self.twice(0x94AD)) \(Self.twice(0x9470)) \(Self.text("Hello"))

            00:00:02;00\t\(Self.twice(0x94AD)) \(Self.text("World"))

            00:00:04;00\t\(Self.twice(0x942C))
            """
        let rows = try SCCReader.read(rollUp)
        #expect(rows.map(\.lines) == [["Hello"], ["World"]])
        #expect(rows.map(\.end) == [SCCTimecode.milliseconds(frame: 62), 4004])

        // Each RDC starts a caption; painting over a row changes the screen, so starts a cue.
        let paintOn = Self.header + """
            00:00:01;00\t\(Self.twice(0x9429)) \(Self.twice(0x9470)) \(Self.text("Paint"))

            00:00:02;00\t\(Self.twice(0x9429)) \(Self.twice(0x9470)) \(Self.text("Paint more"))

            00:00:03;00\t\(Self.twice(0x942C))
            """
        let painted = try SCCReader.read(paintOn)
        #expect(painted.map(\.lines) == [["Paint"], ["Paint more"]])
        #expect(painted.map(\.start) == [SCCTimecode.milliseconds(frame: 34), SCCTimecode.milliseconds(frame: 64)])
    }

    @Test func otherChannelsAreSkippedAndNamed() throws {
        let text = Self.header + "00:00:01;00\t\(Self.twice(0x1C20)) \(Self.twice(0x1CD0)) \(Self.text("Deux")) \(Self.twice(0x1C2F))\n"
        let reading = try SCCReader.decode(text)
        #expect(reading.cues.isEmpty)
        #expect(reading.warnings == ["the file also carries CC2 captions: only CC1 was read"])
    }

    @Test func aCaptionNeverErasedIsGivenAnEnd() throws {
        let text = Self.header + "00:00:01;00\t" + [Self.twice(0x9420), Self.twice(0x9470), Self.text("Last"), Self.twice(0x942F)].joined(separator: " ")
        let reading = try SCCReader.decode(text)
        let start = SCCTimecode.milliseconds(frame: 30 + 6)
        #expect(reading.cues == [Cue(start: start, end: start + 3000, lines: ["Last"])])
        #expect(reading.warnings.count == 1 && reading.warnings[0].contains("still on screen when the file ends"))
    }

    @Test func bytesWithBOMAndCRLFAndNonDropTimecodes() throws {
        let text = "\u{FEFF}Scenarist_SCC V1.0\r\n\r\n00:01:00:00\t" + [Self.twice(0x9420), Self.twice(0x9470), Self.text("Hi"), Self.twice(0x942F)].joined(separator: " ")
            + "\r\n\r\n00:01:02:00\t" + Self.twice(0x942C) + "\r\n"
        let cues = try SCCReader.read(Data(text.utf8))
        // Non-drop labels count frames at 29.97 fps: 00:01:00:00 is frame 1800, 60.06 s.
        #expect(cues == [Cue(start: SCCTimecode.milliseconds(frame: 1805), end: SCCTimecode.milliseconds(frame: 1860), lines: ["Hi"])])
    }

    @Test func damagedWordsAreSkipped() throws {
        // "1420" and "4869" lack their parity bits; the other copy of a doubled code still acts.
        let words = ["1420", "9420", "94z0", "942", "94200", Self.twice(0x9470), Self.text("Hi"), "4869", Self.text("iH, the rest is fine"), "142f", "942f"]
        let reading = try SCCReader.decode(Self.header + "00:00:01;00\t" + words.joined(separator: " ") + "\n\n00:00:05;00\t942c 942c\n")
        #expect(reading.cues.map(\.lines) == [["HiiH, the rest is fine"]])
        #expect(reading.warnings == [
            "3 word(s) that are not 4 hex digits were skipped (the first, \"94z0\", on line 3)",
            "3 word(s) with bad parity were skipped (the first on line 3): the file is damaged",
        ])
    }

    @Test func filesWrittenWithoutParityAreReadWithoutTheCheck() throws {
        let words = ["1420", "1420", "1470", "1470", "4869", "2074", "6865", "7265", "142f", "142f"]
        let reading = try SCCReader.decode(Self.header + "00:00:01;00\t" + words.joined(separator: " ") + "\n\n00:00:05;00\t142c 142c\n")
        #expect(reading.cues.map(\.lines) == [["Hi there"]])
        #expect(reading.warnings == ["12 of 12 words have bad parity: the file was written without parity bits, so they were read without the check"])
    }

    @Test func malformedFilesFailWithTheirLine() {
        #expect(throws: SubtitleReadError.missingHeader(format: "SCC", expected: "the line \"Scenarist_SCC V1.0\"")) {
            try SCCReader.read("00:00:01;00\t9420 9420\n")
        }
        #expect(Self.failure("00:00:01;30\t9420\n")?.hasPrefix("line 3: timecode 00:00:01;30 is out of range") == true)
        #expect(Self.failure("00:61:00;00\t9420\n")?.hasPrefix("line 3: timecode") == true)
        #expect(Self.failure("\n\n00:00:01;00\t9420\n\nnot a timecode 9420\n") == "line 7: cannot read the timing \"not\"")
        #expect(Self.failure("00:00:01;0\t9420\n") == "line 3: cannot read the timing \"00:00:01;0\"")
        #expect(Self.failure("00:00:05;00\t9420\n\n00:00:04;00\t9420\n")
            == "line 5: timecode 00:00:04;00 comes before line 3's 00:00:05;00: SCC lines must be in time order")
        #expect(throws: SubtitleReadError.binary) { try SCCReader.read(Data([0x53, 0x00, 0x0A])) }
    }

    @Test func randomFilesNeverCrash() {
        var rng = SeededGenerator(seed: 608)
        let codes: [UInt16] = [0x9420, 0x94AE, 0x942F, 0x942C, 0x94AD, 0x9425, 0x9426, 0x94A7, 0x9429, 0x94A1, 0x94A4, 0x9470, 0x13D0,
                               0x9137, 0x9225, 0x13B3, 0x9120, 0x97A2, 0x1C20, 0x152C, 0x942A, 0x0101, 0x8080]
        for _ in 0..<2000 {
            var lines: [String] = []
            var frame = Int.random(in: 0...200, using: &rng)
            for _ in 0..<Int.random(in: 0...12, using: &rng) {
                frame += Int.random(in: -3...90, using: &rng)
                let words = (0..<Int.random(in: 0...24, using: &rng)).map { _ -> String in
                    switch Int.random(in: 0..<10, using: &rng) {
                    case 0..<5: return SCCWriter.hex(codes.randomElement(using: &rng) ?? 0)
                    case 5..<9: return SCCWriter.hex(UInt16.random(in: 0...UInt16.max, using: &rng))
                    default: return ["94", "zz12", "94200", "", "9420\t"].randomElement(using: &rng) ?? ""
                    }
                }
                lines.append(SCCTimecode.dropFrameLabel(max(0, frame)) + "\t" + words.joined(separator: " "))
            }
            guard let cues = try? SCCReader.read(Self.header + lines.joined(separator: "\n\n")) else { continue }
            #expect(cues.allSatisfy { $0.start < $0.end && !$0.lines.isEmpty && $0.lines.allSatisfy { !$0.isEmpty && $0.count <= 32 } })
        }
    }

    @Test func aGiantHostileFileReadsInBoundedTime() throws {
        // Codes that each touch both memories, never doubled, over 300,000 words.
        let line = [0x9420, 0xC1C1, 0x942F, 0x94AE, 0x942C, 0x9429, 0xC1C1, 0x94AD, 0x9425, 0xC1C1].map(SCCWriter.hex).joined(separator: " ")
        let body = (0..<30_000).map { SCCTimecode.dropFrameLabel($0 * 10) + "\t" + line }.joined(separator: "\n")
        let clock = ContinuousClock()
        let started = clock.now
        let reading = try SCCReader.decode(Self.header + body)
        #expect(clock.now - started < .seconds(20))
        #expect(!reading.cues.isEmpty)
    }
}
