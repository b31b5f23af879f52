import CapforgeCore
import Foundation
import Testing

@testable import Captions

@Suite struct RoundTripTests {
    /// Built cues from a stream that switches to the basic tier part way, without word lists
    /// (files carry text and times only).
    static func builtCues(seed: UInt64) throws -> (cues: [Cue], transcript: Transcript) {
        let words = WordStreams.stream(seed: seed, wordCount: 200) { $0 >= 120 ? .basic : .modern }
        let cues = try CueBuilder(profile: .netflixEnglish, fps: 25).build(words: words).cues
        return (cues, Transcript(language: .english, words: words, engines: [Fixtures.modernEngine, Fixtures.basicEngine], duration: 120))
    }

    static func textAndTimes(_ cues: [Cue]) -> [Cue] {
        cues.map { Cue(start: $0.start, end: $0.end, lines: $0.lines) }
    }

    @Test(arguments: [UInt64(7), 8, 9])
    func srt(seed: UInt64) throws {
        let (cues, _) = try Self.builtCues(seed: seed)
        let read = try SubtitleReader.read(Data(SRTWriter(cues: cues).render().utf8), format: .srt)
        #expect(read.format == .srt && read.encoding == .utf8)
        #expect(read.cues == Self.textAndTimes(cues))
    }

    @Test(arguments: [UInt64(7), 8, 9])
    func webVTT(seed: UInt64) throws {
        let (cues, transcript) = try Self.builtCues(seed: seed)
        let text = WebVTTWriter(cues: cues, transcript: transcript).render()
        let read = try SubtitleReader.read(Data(text.utf8))
        #expect(read.format == .vtt)
        #expect(read.cues == Self.textAndTimes(cues))
    }

    /// ASS stores centiseconds, so times come back rounded to 10 ms; the notice event and the
    /// colour overrides do not come back as text.
    @Test(arguments: [UInt64(7), 8, 9])
    func ass(seed: UInt64) throws {
        let (cues, transcript) = try Self.builtCues(seed: seed)
        let style = try StyleSheet.load(named: "default", in: Fixtures.stylesFolder)
        let text = ASSWriter(cues: cues, transcript: transcript, video: VideoSize(width: 1920, height: 1080), style: style).render()
        #expect(text.contains("{\\c&H"), "the stream has low-confidence words to colour")
        #expect(text.contains(",Notice,,"))
        let read = try SubtitleReader.read(Data(text.utf8))
        #expect(read.format == .ass)
        let rounded = Self.textAndTimes(cues).map { Cue(start: ($0.start + 5) / 10 * 10, end: ($0.end + 5) / 10 * 10, lines: $0.lines) }
        #expect(read.cues == rounded)
    }
}
