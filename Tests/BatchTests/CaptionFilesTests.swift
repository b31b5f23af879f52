import CapforgeCore
import Captions
import Foundation
import Testing
@testable import Batch

/// Captions Capforge wrote, picked up beside a video as `capforge mux` does.
@Suite struct CaptionFilesTests {
    /// `caption --translate --mux` titles the track "English (automatic, translated from …)";
    /// `capforge mux VIDEO` read only the tier back and dropped the translation.
    @Test func aTranslationKeepsItsTitleWhenMuxedLater() throws {
        let folder = try scratchFolder("caption-files")
        defer { try? FileManager.default.removeItem(at: folder) }
        let words = ["Good", "morning", "everyone."].enumerated().map { i, text in
            Word(text: text, start: 1 + Double(i) * 0.4, end: 1.3 + Double(i) * 0.4, confidence: 0.9, tier: .modern, engine: "whisper")
        }
        var transcript = Transcript(language: .english, words: words, engines: [EngineIdentity(engine: "whisper", tier: .modern, model: "base")], duration: 5)
        transcript.translatedFrom = Language("ja")
        let builder = try CueBuilder(fps: 25)
        let cues = try builder.build(words: words).cues
        let quality = QualityReport(cues: cues, words: words, rules: builder.rules, lowConfidenceThreshold: 0.5)
        let video = folder.appendingPathComponent("talk.mp4")
        func url(_ format: SubtitleFormat) -> URL { OutputNaming.url(forVideo: video, language: .english, format: format) }
        let writers: [(SubtitleFormat, any SubtitleWriter)] = [
            (.srt, SRTWriter(cues: cues)), (.vtt, WebVTTWriter(cues: cues, transcript: transcript)),
            (.ass, ASSWriter(cues: cues, transcript: transcript, video: VideoSize(width: 640, height: 360), style: try StyleSheet.load(named: "default", in: CLI.repo.appendingPathComponent("Styles")))),
            (.json, JSONWriter(transcript: transcript, cues: cues, settings: CaptionSettings(profile: .netflixEnglish, framesPerSecond: 25), quality: quality)),
        ]
        for (format, writer) in writers { try writer.write(to: url(format), policy: OutputPolicy(ledgers: [])) }
        // SRT has no comments: its title comes from the JSON beside it.
        for format in [SubtitleFormat.srt, .vtt, .ass] {
            let track = try CaptionFiles.track(from: url(format), language: nil, title: nil)
            #expect(track.title == "English (automatic, translated from Japanese)", "\(format)")
        }
        try FileManager.default.removeItem(at: url(.json))
        #expect(try CaptionFiles.track(from: url(.srt), language: nil, title: nil).title == "English", "plain SRT: nothing known about it")
    }
}
