import CapforgeCore
import Foundation
import Testing

@testable import Captions

@Suite struct ReaderRobustnessTests {
    static let twoCues = [Cue(start: 1000, end: 2500, lines: ["Café au lait"]), Cue(start: 3000, end: 4000, lines: ["Two", "lines"])]

    @Test func srtWithBOMAndCRLFAndNoFinalNewline() throws {
        let text = "\u{FEFF}1\r\n00:00:01,000 --> 00:00:02,500\r\nCafé au lait\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\nTwo\r\nlines"
        let document = try SubtitleReader.read(Data(text.utf8))
        #expect(document.cues == Self.twoCues)
        #expect(document.encoding == .utf8 && document.format == .srt)
    }

    @Test func decimalMarksAndPrecision() throws {
        let text = "1\n00:00:01.000 --> 00:00:02,5\nCafé au lait\n\n7\n0:00:03,00 --> 00:00:04.0000 X1:10 X2:20\n<i>Two</i>\n{\\an8}lines\n"
        #expect(try SubtitleReader.read(Data(text.utf8)).cues == Self.twoCues)
    }

    @Test func outOfOrderIndicesAndTimesAreSortedByTime() throws {
        let text = "5\n00:00:03,000 --> 00:00:04,000\nTwo\nlines\n\n2\n00:00:01,000 --> 00:00:02,500\nCafé au lait\n"
        #expect(try SubtitleReader.read(Data(text.utf8)).cues == Self.twoCues)
    }

    @Test func latin1AndWindows1252AreDetected() throws {
        var bytes = Array("1\n00:00:01,000 --> 00:00:02,500\nCaf".utf8) + [0xE9] + Array(" au lait\n".utf8)
        let latin1 = try SubtitleReader.read(Data(bytes))
        #expect(latin1.encoding == .latin1 && latin1.cues[0].lines == ["Café au lait"])
        bytes += Array("\n2\n00:00:03,000 --> 00:00:04,000\n".utf8) + [0x93, 0x4F, 0x4B, 0x94, 0x20, 0x80, 0x35] + [0x0A]
        let windows = try SubtitleReader.read(Data(bytes))
        #expect(windows.encoding == .windows1252)
        #expect(windows.cues[1].lines == ["\u{201C}OK\u{201D} \u{20AC}5"])
    }

    @Test func undecodableAndBinaryInputIsRejectedClearly() {
        let undefined = Array("1\n00:00:01,000 --> 00:00:02,000\nbad ".utf8) + [0x81, 0xE9]
        #expect(throws: SubtitleReadError.undecodable(reason: "not UTF-8, and byte 0x81 is undefined in Windows-1252")) {
            try SubtitleReader.read(Data(undefined))
        }
        #expect(throws: SubtitleReadError.binary) { try SubtitleReader.read(Data([0x31, 0x00, 0x0A])) }
    }

    @Test func utf16WithBOM() throws {
        let text = "WEBVTT\n\n00:01.000 --> 00:02.500\nCafé au lait\n\n00:00:03.000 --> 00:00:04.000\nTwo\nlines\n"
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let document = try SubtitleReader.read(Data(bytes))
        #expect(document.encoding == .utf16LE && document.cues == Self.twoCues)
    }

    @Test func webVTTBlocksTagsAndEntities() throws {
        let text = """
            WEBVTT - with a title
            Kind: captions

            NOTE a comment
            spanning lines

            STYLE
            ::cue { color: yellow }

            intro
            00:00:01.000 --> 00:00:02.500 align:start position:10%
            <v Speaker>Café</v> <c.loud>au</c> lait

            00:00:03,000 --> 00:00:04.000
            <00:00:03.500>Two
            lines
            """
        #expect(try SubtitleReader.read(Data(text.utf8)).cues == Self.twoCues)
        let escaped = "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nFish &amp; chips &lt;3\n"
        #expect(try SubtitleReader.read(Data(escaped.utf8)).cues[0].lines == ["Fish & chips <3"])
        #expect(throws: SubtitleReadError.missingHeader(format: "WebVTT", expected: "a WEBVTT line")) {
            try SubtitleReader.read(Data("WEBVTTX\n".utf8), format: .vtt)
        }
    }

    @Test func assFieldOrderCommasAndOverrides() throws {
        let text = """
            [Script Info]
            ScriptType: v4.00+

            [Events]
            Format: Layer, Style, Start, End, Name, MarginL, MarginR, MarginV, Effect, Text
            Comment: 0,Default,0:00:00.00,0:00:09.00,,0,0,0,,not shown
            Dialogue: 0,Default,0:00:03.00,0:00:04.00,,0,0,0,,Two\\Nlines
            Dialogue: 0,Notice,0:00:00.00,0:00:09.00,,0,0,0,,Automatic captions
            Dialogue: 0,Default,0:00:01.00,0:00:02.50,,0,0,0,,{\\i1}Café{\\i0} au {comment}lait
            """
        #expect(try SubtitleReader.read(Data(text.utf8)).cues == Self.twoCues)
        let commas = text.replacingOccurrences(of: "Two\\Nlines", with: "One, two, three")
        #expect(try SubtitleReader.read(Data(commas.utf8)).cues.map(\.lines) == [["Café au lait"], ["One, two, three"]])
    }

    @Test func malformedInputNamesTheLine() {
        let badTime = "1\n00:00:01,000 --> 00:00:61,000\nText\n"
        #expect(throws: SubtitleReadError.malformedTiming(line: 2, text: "00:00:01,000 --> 00:00:61,000")) {
            try SubtitleReader.read(Data(badTime.utf8))
        }
        let backwards = "1\n00:00:02,000 --> 00:00:01,000\nText\n"
        #expect(throws: SubtitleReadError.endBeforeStart(line: 2)) { try SubtitleReader.read(Data(backwards.utf8)) }
        let stray = "1\n00:00:01,000 --> 00:00:02,000\nText\n\nstray words\n"
        #expect(throws: SubtitleReadError.textWithoutTiming(line: 5)) { try SubtitleReader.read(Data(stray.utf8)) }
        let fields = "[Script Info]\n[Events]\nDialogue: 0,0:00:01.00,0:00:02.00\n"
        #expect(throws: SubtitleReadError.self) { try SubtitleReader.read(Data(fields.utf8)) }
    }

    @Test func lintReadsFilesFromDiskByExtension() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("clip.vtt")
        try WebVTTWriter(cues: Self.twoCues, transcript: Fixtures.modernTranscript).write(to: url, policy: OutputPolicy(ledgers: []))
        // The 500 ms gap is 12 frames at 24 fps (should be chained) but 15 at 30 (fine).
        #expect(try Lint.check(fileAt: url, profile: .netflixEnglish, fps: 30).passed)
        let report = try Lint.check(fileAt: url, profile: .netflixEnglish, fps: 24)
        #expect(report.format == .vtt && report.cueCount == Self.twoCues.count)
        #expect(report.violations.map(\.rule) == [.unchainedGap])
        let missing = folder.appendingPathComponent("missing.srt")
        #expect(throws: UserFileError.missing(path: missing.path, what: "subtitle file")) { try Lint.check(fileAt: missing) }
        // A FIFO or a folder is refused at once, by kind (reading a FIFO would block).
        let fifo = folder.appendingPathComponent("pipe.srt")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        #expect(throws: UserFileError.notAFile(path: fifo.path, what: "subtitle file", kind: "FIFO")) { try Lint.check(fileAt: fifo) }
        #expect(throws: UserFileError.notAFile(path: folder.path, what: "subtitle file", kind: "folder")) { try Lint.check(fileAt: folder) }
    }

    // MARK: streamed as read whole

    /// `text` as a file in `encoding`, with the byte order mark a UTF-16 file needs.
    static func bytes(_ text: String, _ encoding: TextEncoding) throws -> Data {
        switch encoding {
        case .utf8: Data(text.utf8)
        case .latin1: try #require(text.data(using: .isoLatin1))
        case .windows1252: try #require(text.data(using: .windowsCP1252))
        case .utf16LE: Data([0xFF, 0xFE]) + (try #require(text.data(using: .utf16LittleEndian)))
        case .utf16BE: Data([0xFE, 0xFF]) + (try #require(text.data(using: .utf16BigEndian)))
        }
    }

    /// What reading a file gives: its cues and encoding, or the error (line numbers and all).
    static func outcome(_ read: () throws -> (cues: [Cue], encoding: TextEncoding)) -> String {
        do {
            let (cues, encoding) = try read()
            return "\(encoding): \(cues)"
        } catch {
            return "\(type(of: error)): \(error)"
        }
    }

    /// Both ways of reading the file at `url`: whole, and a piece at a time with the streamed cues
    /// in time order (an SRT's come in file order, which `inFileOrder` gets).
    static func bothWays(_ url: URL, inFileOrder: ((Cue) -> Void)? = nil) -> (whole: String, streamed: String) {
        let whole = outcome {
            let document = try SubtitleReader.read(fileAt: url)
            return (document.cues, document.encoding)
        }
        let streamed = outcome {
            var cues: [Cue] = []
            let read = try SubtitleReader.forEachCue(fileAt: url) {
                cues.append($0)
                inFileOrder?($0)
            }
            let sorted = cues.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
            return (sorted, read.encoding)
        }
        return (whole, streamed)
    }

    static let samples: [(name: String, text: String)] = [
        ("srt", "2\n00:00:03,000 --> 00:00:04,000\n%W <i>two</i>\nlines\n\n1\n00:00:01,000 --> 00:00:02,500\n{\\an8}%W\n\n3\n00:00:05,000 --> 00:00:06,000\nlast"),
        ("vtt", "WEBVTT\n\nNOTE a note\n\n00:00:03.000 --> 00:00:04.000\n%W &amp; two\n\n00:01.000 --> 00:02.500 align:start\n%W\n"),
        ("ass", "[Script Info]\nScriptType: v4.00+\n\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
            + "Dialogue: 0,0:00:03.00,0:00:04.00,Default,,0,0,0,,%W\\Ntwo\nDialogue: 0,0:00:00.00,0:00:09.00,Notice,,0,0,0,,Automatic\n"
            + "Dialogue: 1,0:00:01.00,0:00:02.50,Default,,0,0,0,,{\\i1}%W{\\i0}, with commas\nDialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,same start\n"),
    ]

    /// SRT, WebVTT and ASS (also under a name that does not say which) in every encoding and line
    /// ending, read a piece at a time: the cues, encoding and errors (line numbers included) of
    /// reading them whole; an SRT's cues in file order, an ASS script's in time order.
    @Test(arguments: [TextEncoding.utf8, .latin1, .windows1252, .utf16LE, .utf16BE])
    func streamedReadingGivesWhatReadingWholeGives(encoding: TextEncoding) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let word = ["UTF-8": "Café ☃", "ISO-8859-1": "Café", "Windows-1252": "“Café” €"][encoding.rawValue] ?? "Café 😀"
        for (name, sample) in Self.samples {
            let broken = name == "ass" ? sample.replacingOccurrences(of: "0:00:05", with: "0:00:0x").replacingOccurrences(of: "1,0:00:01.00", with: "1,0:00:0x.00")
                : sample.replacingOccurrences(of: "00:00:03", with: "00:00:0x")
            for (text, ending, ext) in [(sample, "\n", name), (sample, "\r\n", "txt"), (sample, "\r", name), (broken, "\r\n", name)] {
                let url = folder.appendingPathComponent("\(name)-\(ending.utf8.count).\(ext)")
                try Self.bytes(text.replacingOccurrences(of: "%W", with: word).replacingOccurrences(of: "\n", with: ending), encoding).write(to: url)
                var fileOrder: [Int] = []
                let read = Self.bothWays(url) { fileOrder.append($0.start) }
                #expect(read.streamed == read.whole, "\(url.lastPathComponent) in \(encoding)")
                #expect(read.whole.contains(text == sample ? "\(encoding): [" : "line "), "\(read.whole)")
                if text == sample, ext == "srt" { #expect(fileOrder == [3000, 1000, 5000]) }
            }
        }
    }

    /// Files of a few megabytes, in pieces that end at a line break: in UTF-16 a break is a code
    /// unit (a byte 0x0A inside another character is none), and a piece that would end between a
    /// CR and its LF ends before the CR (the LF would make an empty line, and every line number
    /// after it one too many).
    @Test func piecesEndAtWholeLineBreaks() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // U+0A0D and U+0D0A hold the bytes of CR and LF in either byte order.
        let cue = { (index: Int) in "\(index)\n00:00:\(String(format: "%02d", index % 60)),000 --> 00:00:\(String(format: "%02d", index % 60)),500\nਊ ഊ \(index)\n\n" }
        let cues = (1...26_000).map(cue).joined()
        // CR breaks up to a CR LF whose CR is the first piece's last byte (blank lines before the cues
        // put it there), then a stray line: its number is in the error.
        let crBlocks = (1...15_000).map(cue).joined().replacingOccurrences(of: "\n", with: "\r").dropLast(2)
        let padded = String(repeating: "\r", count: SubtitleReader.pieceBytes - 1 - crBlocks.utf8.count) + crBlocks + "\r\n\nstray line\n"
        let files: [(String, String, TextEncoding)] = [("le.srt", cues, .utf16LE), ("be.srt", cues.replacingOccurrences(of: "\n", with: "\r\n"), .utf16BE),
                                                      ("cr.srt", padded, .utf8)]
        for (name, text, encoding) in files {
            let url = folder.appendingPathComponent(name)
            try Self.bytes(text, encoding).write(to: url)
            let read = Self.bothWays(url)
            #expect(read.streamed == read.whole, "\(name): \(read.streamed.suffix(200)) against \(read.whole.suffix(200))")
            #expect(read.whole.contains(name == "cr.srt" ? "text without a timing line" : "ਊ ഊ 26000"), "\(read.whole.suffix(200))")
        }
    }
}
