import CapforgeCore
import Foundation
import Testing

@testable import Captions

@Suite struct WriterGoldenTests {
    @Test func srt() {
        #expect(SRTWriter(cues: Fixtures.mixedCues).render() == """
            1
            00:00:00,500 --> 00:00:01,500
            Hello world.

            2
            00:00:02,000 --> 00:00:03,120
            Basic
            words

            """)
    }

    @Test func webVTT() {
        #expect(WebVTTWriter(cues: Fixtures.mixedCues, transcript: Fixtures.mixedTranscript).render() == """
            WEBVTT

            NOTE
            Recognition tier: mixed
            Engine: whisper.cpp (modern tier), model ggml-base.en, sha256 60ed5bc3
            Engine: pocketsphinx (basic tier), model en-us
            Basic recognition share: 50.0% of speech

            00:00:00.500 --> 00:00:01.500
            Hello world.

            00:00:02.000 --> 00:00:03.120
            Basic
            words

            """)
    }

    @Test func webVTTEscapesMarkup() {
        let cue = Cue(start: 0, end: 1000, lines: ["Fish & chips <3"])
        #expect(WebVTTWriter(cues: [cue], transcript: Fixtures.modernTranscript).render().contains("Fish &amp; chips &lt;3\n"))
    }

    @Test func ass() throws {
        // The threshold is pinned: this checks the format, not the default's value.
        let writer = ASSWriter(cues: Fixtures.mixedCues, transcript: Fixtures.mixedTranscript,
                               video: VideoSize(width: 1280, height: 720), style: try Fixtures.goldenStyle(), lowConfidenceThreshold: 0.5)
        #expect(writer.render() == """
            [Script Info]
            ; Capforge captions
            ; Recognition tier: mixed
            ; Engine: whisper.cpp (modern tier), model ggml-base.en, sha256 60ed5bc3
            ; Engine: pocketsphinx (basic tier), model en-us
            ; Basic recognition share: 50.0% of speech
            ScriptType: v4.00+
            WrapStyle: 3
            ScaledBorderAndShadow: yes
            YCbCr Matrix: None
            PlayResX: 1280
            PlayResY: 720

            [V4+ Styles]
            Format: Name, Fontname, Fontsize, PrimaryColour, Alignment, MarginV
            Style: Default,DejaVu Sans,36,&H00FFFFFF,2,40
            Style: Basic,DejaVu Sans,36,&H00FFE6B4,2,40
            Style: Notice,DejaVu Sans,20,&H00FFFFFF,7,20

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
            Dialogue: 1,0:00:00.00,0:00:04.00,Notice,,0,0,0,,Automatic captions — basic recognition, lower accuracy
            Dialogue: 0,0:00:00.50,0:00:01.50,Default,,0,0,0,,Hello {\\c&H00D7FF&}world.{\\r}
            Dialogue: 0,0:00:02.00,0:00:03.12,Basic,,0,0,0,,Basic\\Nwords

            """)
    }

    @Test func assWithoutBasicSpeechHasNoNotice() throws {
        let writer = ASSWriter(cues: [Fixtures.mixedCues[0]], transcript: Fixtures.modernTranscript,
                               video: VideoSize(width: 1920, height: 1080), style: try Fixtures.goldenStyle())
        let text = writer.render()
        #expect(!text.contains("Notice,,"))
        #expect(text.contains("; Basic recognition share: 0.0% of speech"))
        #expect(text.contains("Style: Default,DejaVu Sans,54,&H00FFFFFF,2,60"))
    }

    @Test func assKeepsBracesAndBackslashesLiteral() throws {
        let cue = Cue(start: 0, end: 1000, lines: ["a {b} c\\N"])
        let text = ASSWriter(cues: [cue], transcript: Fixtures.modernTranscript, video: VideoSize(width: 640, height: 360),
                             style: try Fixtures.goldenStyle()).render()
        #expect(text.contains(",,a \u{FF5B}b\u{FF5D} c\\\u{2060}N\n"))
    }

    /// Players that show SRT through libass obey `{\an8}` and `\N` in it: SRT text is escaped as ASS text is.
    @Test func srtKeepsBracesAndBackslashesLiteral() {
        let cue = Cue(start: 0, end: 1000, lines: ["a {\\an8} c\\N"])
        #expect(SRTWriter(cues: [cue]).render().contains("\na \u{FF5B}\\\u{2060}an8\u{FF5D} c\\\u{2060}N\n"))
    }

    /// A model's name comes from a file name: no line break or "-->" in it may end a header line
    /// and start a cue (WebVTT), an event (ASS) or a line of metadata (TTML).
    @Test func headersHoldAModelNameOnOneLine() throws {
        let name = "tiny.en\n\n00:00:00.000 --> 00:00:05.000\nINJECTED\r\nDialogue: 0,0:00:00.00,0:00:05.00,Default,,0,0,0,,INJECTED"
        var transcript = Fixtures.modernTranscript
        transcript.engines = [EngineIdentity(engine: "whisper", tier: .modern, model: name)]
        let cue = Cue(start: 500, end: 1500, lines: ["Hello world."])
        let vtt = WebVTTWriter(cues: [cue], transcript: transcript).render()
        #expect(vtt.components(separatedBy: "\n").filter { $0.contains("-->") } == ["00:00:00.500 --> 00:00:01.500"], "\(vtt)")
        #expect(!vtt.contains("\nINJECTED") && vtt.contains("model tiny.en\\u{A}\\u{A}00:00:00.000 --\u{2060}> 00:00:05.000\\u{A}INJECTED"), "\(vtt)")
        let ass = ASSWriter(cues: [cue], transcript: transcript, video: VideoSize(width: 640, height: 360), style: try Fixtures.goldenStyle()).render()
        #expect(ass.components(separatedBy: "\n").filter { $0.hasPrefix("Dialogue:") }.count == 1, "\(ass)")
        #expect(!ass.contains("\nINJECTED") && !ass.contains("\r"), "\(ass)")
        let ttml = TTMLWriter(cues: [cue], transcript: transcript, profile: .imsc11Text, frameRate: 25).render()
        #expect(ttml.contains("model tiny.en\\u{A}\\u{A}00:00:00.000 --&gt; 00:00:05.000\\u{A}INJECTED\\u{D}\\u{A}Dialogue"), "\(ttml)")
        // A notice text with a line break stays one event: the break is the event's own.
        let notice = ASSWriter(cues: [Cue(start: 0, end: 900, lines: ["Basic"], words: [Fixtures.mixedWords[2]])], transcript: Fixtures.mixedTranscript,
                               video: VideoSize(width: 640, height: 360), style: try Fixtures.goldenStyle(), noticeText: "one\nDialogue: 0,0:00:00.00,0:00:05.00,Default,,0,0,0,,two").render()
        #expect(notice.components(separatedBy: "\n").filter { $0.hasPrefix("Dialogue:") }.count == 2 && notice.contains("one\\NDialogue"), "\(notice)")
    }

    @Test func json() throws {
        let rules = try CueRules(profile: .netflixEnglish, framesPerSecond: 25)
        let quality = QualityReport(cues: Fixtures.mixedCues, words: Fixtures.mixedWords, rules: rules, lowConfidenceThreshold: 0.5)
        let settings = CaptionSettings(profile: .netflixEnglish, framesPerSecond: 25, style: "default")
        let modernOnly = Transcript(language: .english, words: [Fixtures.mixedWords[0]], engines: [Fixtures.modernEngine], duration: 1)
        let text = try JSONWriter(transcript: modernOnly, cues: [Fixtures.mixedCues[0]], settings: settings, quality: quality).render()
        let expectedStart = """
            {
              "arbitrations" : [

              ],
              "basicShare" : 0,
              "chunks" : [

              ],
              "cues" : [
                {
                  "endMs" : 1500,
                  "lines" : [
                    "Hello world."
                  ],
                  "number" : 1,
                  "startMs" : 500,
                  "tier" : "modern"
                }
              ],
              "droppedWords" : [

              ],
              "duration" : 1,
              "engines" : [
                {
                  "engine" : "whisper.cpp",
                  "model" : "ggml-base.en",
                  "modelSHA256" : "60ed5bc3",
                  "tier" : "modern"
                }
              ],
              "format" : "capforge-captions",
              "language" : "en",
            """
        #expect(text.hasPrefix(expectedStart))
        #expect(text.hasSuffix("""
              "tier" : "modern",
              "version" : 1,
              "words" : [
                {
                  "confidence" : 0.9,
                  "end" : 0.9,
                  "engine" : "whisper.cpp",
                  "start" : 0.5,
                  "text" : "Hello",
                  "tier" : "modern"
                }
              ]
            }

            """))
        // The rest is the quality report and settings, checked as data.
        struct Parsed: Decodable { var quality: QualityReport; var settings: CaptionSettings }
        let parsed = try JSONDecoder().decode(Parsed.self, from: Data(text.utf8))
        #expect(parsed.quality == quality)
        #expect(parsed.settings == settings)
        // With --beam, how the windows were decoded is there too.
        var beamed = modernOnly
        beamed.beam = BeamTally(beamWindows: 3, unsureWindows: 1)
        struct Beamed: Decodable { var beam: BeamTally }
        let beamedText = try JSONWriter(transcript: beamed, cues: [Fixtures.mixedCues[0]], settings: settings, quality: quality).render()
        #expect(try JSONDecoder().decode(Beamed.self, from: Data(beamedText.utf8)).beam == BeamTally(beamWindows: 3, unsureWindows: 1))
    }

    @Test func playerNaming() {
        let video = URL(fileURLWithPath: "/videos/talk.final.mp4")
        #expect(OutputNaming.url(forVideo: video, language: Language("EN")!, format: .srt).path == "/videos/talk.final.en.srt")
        #expect(OutputNaming.url(forVideo: video, language: Language("ko")!, format: .ass).path == "/videos/talk.final.ko.ass")
    }

    @Test func writeIsAtomicAndReadable() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("talk.en.srt")
        try SRTWriter(cues: Fixtures.mixedCues).write(to: url, policy: OutputPolicy(ledgers: []))
        #expect(try String(contentsOf: url, encoding: .utf8) == SRTWriter(cues: Fixtures.mixedCues).render())
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["talk.en.srt"])
    }

    /// A file without speech: a WebVTT header and a NOTE saying so, which reads back as no cues
    /// (checked by hand with webvtt-py 0.6.0 and pysubs2 1.8.1, which take it).
    @Test func webVTTWithoutCuesSaysNoSpeechWasFound() throws {
        let text = WebVTTWriter(cues: [], transcript: Fixtures.modernTranscript).render()
        #expect(text.hasPrefix("WEBVTT\n\nNOTE\n") && text.hasSuffix("No speech was found: this file has no cues\n"), "\(text)")
        let read = try SubtitleReader.read(Data(text.utf8), format: .vtt)
        #expect(read.cues.isEmpty)
        #expect(!WebVTTWriter(cues: Fixtures.mixedCues, transcript: Fixtures.mixedTranscript).render().contains("No speech"))
    }
}
