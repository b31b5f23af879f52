import Foundation
import Testing

@testable import Captions

/// Capforge's broadcast formats read back by open-source implementations nobody here wrote
/// (ttconv, pycaption; Scripts/checkers-venv): each file reads without error, and its cues'
/// texts and times are Capforge's own (its SRT of the same run), to the format's precision.
@Suite(.serialized, .timeLimit(.minutes(20))) struct BroadcastFormatTests {
    static let python = CLI.repo.appendingPathComponent(".deps/venv-checkers/bin/python").path
    static let reader = CLI.repo.appendingPathComponent("Scripts/read-timed-text").path

    struct ReadCue: Equatable {
        var start: Double
        var end: Double
        var text: String
    }

    /// The cues an independent reader finds in `file`, and what it said on standard error.
    static func read(_ file: String, with tool: String) throws -> (cues: [ReadCue], stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [reader, tool, file]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(tool) could not read \(file): \(errors)")
        let cues = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line -> ReadCue? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let start = object["start"] as? Double, let end = object["end"] as? Double, let text = object["text"] as? String else { return nil }
            return ReadCue(start: start, end: end, text: text)
        }
        return (cues, errors)
    }

    /// Capforge's own cues, from the SRT written in the same run.
    static func srtCues(_ path: String) throws -> [ReadCue] {
        try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard lines.count >= 3, lines[1].contains("-->") else { return nil }
            let times = SyncEndToEndTests.times(lines[1])
            return ReadCue(start: times[0], end: times[1], text: lines[2...].filter { !$0.isEmpty }.joined(separator: "\n"))
        }
    }

    /// The fixture captioned once in every format asked, in a folder of its own.
    static func captioned(_ fixture: String, formats: String, extra: [String] = []) throws -> URL {
        try captionedRun(fixture, formats: formats, extra: extra).folder
    }

    static func captionedRun(_ fixture: String, formats: String, extra: [String] = []) throws -> (folder: URL, stdout: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-broadcast-\(UUID().uuidString)")
        let run = try CLI().run(["caption", CLI.fixtures.appendingPathComponent(fixture).path, "--out", folder.path, "--formats", "srt," + formats] + extra)
        try #require(run.status == 0, "\(run.stderr)\(run.stdout)")
        return (folder, run.stdout)
    }

    func expectSame(_ read: [ReadCue], _ own: [ReadCue], within tolerance: Double, _ label: String) {
        #expect(read.count == own.count, "\(label): \(read.count) cues read, \(own.count) written")
        for (a, b) in zip(read, own) {
            #expect(a.text == b.text, "\(label): \(a.text) ≠ \(b.text)")
            #expect(abs(a.start - b.start) <= tolerance && abs(a.end - b.end) <= tolerance, "\(label): \(a) vs \(b)")
        }
    }

    @Test func ttmlAndEBUTTDReadBackByTtconvAndPycaption() throws {
        guard FileManager.default.fileExists(atPath: Self.python) else {
            Issue.record("the checkers venv is missing: run Scripts/checkers-venv")
            return
        }
        let folder = try Self.captioned("two_cities.webm", formats: "ttml,ebu-tt-d", extra: ["--model", "tiny.en"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let own = try Self.srtCues(folder.appendingPathComponent("two_cities.en.srt").path)
        #expect(own.count >= 5)
        let ttml = folder.appendingPathComponent("two_cities.en.ttml").path
        let text = try String(contentsOfFile: ttml, encoding: .utf8)
        #expect(text.contains("ttp:contentProfiles=\"http://www.w3.org/ns/ttml/profile/imsc1.1/text\"") && text.contains("ttp:frameRate=\"10\""))
        expectSame(try Self.read(ttml, with: "ttconv").cues, own, within: 0.001, "ttconv, IMSC 1.1")
        expectSame(try Self.read(ttml, with: "pycaption").cues.map { ReadCue(start: $0.start, end: $0.end, text: $0.text) }, own, within: 0.001, "pycaption, DFXP")
        let ebu = folder.appendingPathComponent("two_cities.en.ebu-tt-d.xml").path
        #expect(try String(contentsOfFile: ebu, encoding: .utf8).contains("<ebuttm:conformsToStandard>urn:ebu:tt:distribution:2014-01</ebuttm:conformsToStandard>"))
        expectSame(try Self.read(ebu, with: "ttconv").cues, own, within: 0.001, "ttconv, EBU-TT-D")
    }

    /// The basic tier's flag in TTML: the tier in the head's metadata, the basic style on its cues.
    @Test func theBasicTiersFlagTravelsInTTML() throws {
        let folder = try Self.captioned("korean.mp4", formats: "ttml")
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = try String(contentsOfFile: folder.appendingPathComponent("korean.ko.ttml").path, encoding: .utf8)
        #expect(text.contains("<ttm:desc>Recognition tier: basic</ttm:desc>") && text.contains("xml:lang=\"ko\""), "\(text)")
        #expect(text.contains("style=\"default basic\""))
    }

    /// EBU STL at the video's rate (two_cities is 10 fps: timed in 25 fps frames, said), read by
    /// ttconv's STL reader: texts equal (teletext's 40 columns may re-wrap a line), times to a frame.
    @Test func stlReadsBackByTtconv() throws {
        guard FileManager.default.fileExists(atPath: Self.python) else {
            Issue.record("the checkers venv is missing: run Scripts/checkers-venv")
            return
        }
        let folder = try Self.captioned("librivox.mp4", formats: "stl", extra: ["--model", "tiny.en"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let own = try Self.srtCues(folder.appendingPathComponent("librivox.en.srt").path)
        let stl = folder.appendingPathComponent("librivox.en.stl").path
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: stl)))
        #expect(String(decoding: bytes[3..<11], as: UTF8.self) == "STL25.01" && String(decoding: bytes[14..<16], as: UTF8.self) == "09")
        #expect((bytes.count - 1024) % 128 == 0)
        let read = try Self.read(stl, with: "ttconv").cues
        let flat = { (cue: ReadCue) in ReadCue(start: cue.start, end: cue.end, text: cue.text.replacingOccurrences(of: "\n", with: " ")) }
        expectSame(read.map(flat), own.map(flat), within: 0.041, "ttconv, EBU STL")
    }

    /// What STL's code page lacks is replaced and said; accents travel as ISO 6937's diacritics.
    @Test func stlSaysWhatItCannotCarry() throws {
        var unsupported = Set<Character>()
        #expect(ISO6937.encode("Café ñ ü “ok” €", unsupported: &unsupported) == Array("Caf".utf8) + [0xC2, 0x65, 0x20, 0xC4, 0x6E, 0x20, 0xC8, 0x75, 0x20, 0xAA, 0x6F, 0x6B, 0xBA, 0x20, 0x3F])
        #expect(unsupported == ["€"])
    }

    /// SCC (CEA-608 pop-on, 29.97 drop-frame) read by ttconv and pycaption: texts equal where the
    /// 32-column grid kept the lines (compared without line breaks), times to a frame and a half
    /// (a caption shows when its end-of-caption code arrives, on a frame).
    @Test func sccReadsBackByTtconvAndPycaption() throws {
        guard FileManager.default.fileExists(atPath: Self.python) else {
            Issue.record("the checkers venv is missing: run Scripts/checkers-venv")
            return
        }
        let (folder, said) = try Self.captionedRun("librivox.mp4", formats: "scc", extra: ["--model", "tiny.en"])
        defer { try? FileManager.default.removeItem(at: folder) }
        var own = try Self.srtCues(folder.appendingPathComponent("librivox.en.srt").path)
        // The first cue starts at 1.0 s, before its 80 characters can be sent (a word a frame):
        // it shows when loaded, and the run says so.
        #expect(said.contains("SCC:") && said.contains("late"), "\(said)")
        let scc = folder.appendingPathComponent("librivox.en.scc").path
        #expect(try String(contentsOfFile: scc, encoding: .utf8).hasPrefix("Scenarist_SCC V1.0"))
        let flat = { (cue: ReadCue) in ReadCue(start: cue.start, end: cue.end, text: cue.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")) }
        let starts = { (cues: [ReadCue]) in cues.map(flat).map { ReadCue(start: $0.start, end: $0.start, text: $0.text) } }
        let ttconv = try Self.read(scc, with: "ttconv").cues
        own[0].start = try #require(ttconv.first).start
        expectSame(ttconv.map(flat), own.map(flat), within: 0.05, "ttconv, SCC")
        // pycaption lengthens a cue to the next when the gap is short; its starts and texts are compared.
        expectSame(starts(try Self.read(scc, with: "pycaption").cues), starts(own), within: 0.05, "pycaption, SCC")
        // Capforge reads its own SCC back too.
        let lint = try CLI().run(["lint", scc])
        #expect(lint.stdout.contains("\(own.count) cues, SCC"), "\(lint.stdout)")
    }
}
