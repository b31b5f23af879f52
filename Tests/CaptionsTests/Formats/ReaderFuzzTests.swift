import CapforgeCore
import Foundation
import Testing
import TestSupport

@testable import Captions

/// Random and mutated files must either parse into sane cues or fail with a reader error;
/// a crash fails the whole run. `CAPFORGE_FUZZ_ITERATIONS` raises the count (Scripts/fuzz-readers).
@Suite struct ReaderFuzzTests {
    static var iterations: Int {
        ProcessInfo.processInfo.environment["CAPFORGE_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 10_000
    }
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["CAPFORGE_FUZZ_SEED"].flatMap(UInt64.init) ?? 2024
    }

    static let fragments: [[UInt8]] = [
        "-->", " --> ", ":", ",", ".", "\r\n", "\n\n", "\r", "{", "}", "{\\", "<", ">", "&amp;", "\u{FEFF}",
        "WEBVTT", "[Script Info]", "[Events]", "Dialogue:", "Format: Text", "NOTE", "99999999999", "00:00:00,000",
        "é", "日本語", "\\N",
    ].map { Array($0.utf8) } + [[0xFF, 0xFE], [0xEF, 0xBB, 0xBF], [0x80], [0x81], [0x00], [0xC3], [0xE9]]

    static func seeds() throws -> [[UInt8]] {
        let words = WordStreams.stream(seed: 3, wordCount: 60) { $0 > 30 ? .basic : .modern }
        let cues = try CueBuilder(fps: 25).build(words: words).cues
        let transcript = Transcript(language: .english, words: words, engines: [Fixtures.modernEngine], duration: 60)
        let style = try StyleSheet.load(named: "top", in: Fixtures.stylesFolder)
        return [
            SRTWriter(cues: cues).render(),
            WebVTTWriter(cues: cues, transcript: transcript).render(),
            ASSWriter(cues: cues, transcript: transcript, video: VideoSize(width: 640, height: 480), style: style).render(),
            LintTests.whisperShaped,
        ].map { Array($0.utf8) }
    }

    static func mutate(_ input: [UInt8], _ rng: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...8, using: &rng) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &rng)
            case 1: bytes.insert(contentsOf: fragments.randomElement(using: &rng)!, at: position)
            case 2 where !bytes.isEmpty:
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...40, using: &rng)))
            case 3: bytes = Array(bytes.prefix(position))
            case 4 where !bytes.isEmpty:
                let start = Int.random(in: 0..<bytes.count, using: &rng)
                bytes.insert(contentsOf: bytes[start..<min(bytes.count, start + 80)], at: position)
            default: if !bytes.isEmpty { bytes[position] = [0x30, 0x39, 0x3A, 0x2C, 0x2E, 0x0A, 0x20].randomElement(using: &rng)! }
            }
        }
        return bytes
    }

    static func random(_ rng: inout SeededGenerator) -> [UInt8] {
        let length = Int.random(in: 0...400, using: &rng)
        if Bool.random(using: &rng) {
            return (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
        }
        // Token soup: near-valid structure in random order.
        var bytes: [UInt8] = []
        while bytes.count < length { bytes += fragments.randomElement(using: &rng)! + [UInt8.random(in: 0x20...0x7E, using: &rng)] }
        return bytes
    }

    @Test func readersSurviveRandomAndMutatedFiles() throws {
        var rng = SeededGenerator(seed: Self.seed)
        let seeds = try Self.seeds()
        let formats: [SubtitleFormat?] = [nil, .srt, .vtt, .ass]
        var parsed = 0
        var rejected = 0
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            for iteration in 0..<Self.iterations {
                let input = iteration % 5 == 0 ? Self.random(&rng) : Self.mutate(seeds[iteration % seeds.count], &rng)
                do {
                    let document = try SubtitleReader.read(Data(input), format: formats.randomElement(using: &rng)!)
                    #expect(document.cues.allSatisfy { $0.start >= 0 && $0.end >= $0.start })
                    #expect(zip(document.cues, document.cues.dropFirst()).allSatisfy { $0.start <= $1.start })
                    // Whatever parsed can be linted and written again.
                    _ = try CueRules(profile: .netflixEnglish, framesPerSecond: nil).violations(in: document.cues)
                    _ = SRTWriter(cues: document.cues).render()
                    parsed += 1
                } catch is SubtitleReadError {
                    rejected += 1
                }
            }
        }
        #expect(parsed + rejected == Self.iterations)
        #expect(parsed > Self.iterations / 10 && rejected > Self.iterations / 10, "mutations should exercise both outcomes")
        print("[fuzz] \(Self.iterations) inputs (seed \(Self.seed)): \(parsed) parsed, \(rejected) rejected cleanly, in \(elapsed)")
    }
}
