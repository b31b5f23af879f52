import CapforgeCore
import Foundation
import Burn
import Captions
import Media
import TestSupport
import Testing

/// Subtitle tracks added to copies of real videos: the other streams come out bit-identical,
/// the tracks carry their language and title, and libavcodec decodes them back to the cues.
@Suite struct MuxTests {
    /// Within the shortest video they go into (librivox-0870.mkv, 7.1 s): cues past a video's
    /// end are cut there.
    static let cues = [
        Cue(start: 1000, end: 3500, lines: ["Hello there,", "a second line"]),
        Cue(start: 4000, end: 5020, lines: ["Commas, ampersands & {braces}"]),
        Cue(start: 5250, end: 7000, lines: ["Ça va? Très bien."]),
    ]

    /// A Capforge-style ASS script with the Basic style and the notice event.
    static let basicScript = ASSDocument(parsing: """
        [Script Info]
        ; Capforge captions
        ScriptType: v4.00+
        PlayResX: 320
        PlayResY: 180

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,DejaVu Sans,20,&H00FFFFFF,&H000000FF,&H00000000,&H80000000,0,0,0,0,100,100,0,0,1,2,1,2,10,10,8,1
        Style: Basic,DejaVu Sans,20,&H00FFFFFF,&H000000FF,&H00000000,&H80000000,0,1,0,0,100,100,0,0,1,2,1,2,10,10,8,1
        Style: Notice,DejaVu Sans,12,&H0000FFFF,&H000000FF,&H00000000,&H60000000,1,0,0,0,100,100,0,0,3,3,0,8,10,10,4,1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
        Dialogue: 1,0:00:00.00,0:00:07.00,Notice,,0,0,0,,Basic recognition
        Dialogue: 0,0:00:01.00,0:00:02.50,Basic,,0,0,0,,One, two\\Nthree
        Dialogue: 0,0:00:03.00,0:00:04.00,Basic,,0,0,0,,{\\i1}four{\\i0} five
        """)

    /// Every packet payload of the streams `map` selects, as the file stores them.
    static func payload(_ path: String, _ map: String) throws -> Data {
        try Tool.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-i", path, "-map", map, "-c", "copy", "-f", "data", "-"])
    }

    func expectStreamsCopied(from source: String, to output: String, maps: [String]) throws {
        for map in maps {
            let before = try Self.payload(source, map)
            #expect(!before.isEmpty)
            #expect(try Self.payload(output, map) == before, "stream \(map) should be copied bit for bit")
        }
    }

    func expectDecodesBack(_ track: EmbeddedSubtitleTrack, to cues: [Cue]) {
        #expect(track.events.map(\.start) == cues.map(\.start))
        #expect(track.events.map(\.end) == cues.map(\.end))
        #expect(track.events.map { ASSEventText(decodedText: $0.text).lines } == cues.map(\.lines))
    }

    @Test func mp4GetsLanguageTaggedMovTextTracksThatDecodeBackToTheCues() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let out = work.path("talk.subtitled.mp4")
        let tracks: [SubtitleTrack] = [
            .text(cues: Self.cues, language: Language("fr"), title: SubtitleTrack.title(language: Language("fr"), tier: .modern)),
            .styled(Self.basicScript, language: .english, title: SubtitleTrack.title(language: .english, tier: .basic)),
        ]
        let report = try SubtitleMux(input: Fixtures.path("librivox.mp4"), output: out, tracks: tracks, outputPolicy: OutputPolicy(ledgers: [])).run()
        #expect(report.warnings.isEmpty)
        #expect(report.added.map(\.codec) == ["mov_text", "mov_text"])
        #expect(report.added.map(\.languageTag) == ["fra", "eng"])
        try expectStreamsCopied(from: Fixtures.path("librivox.mp4"), to: out, maps: ["0:v", "0:a"])

        let streams = try MediaProbe(path: out).subtitleStreams
        #expect(streams.map(\.codec) == ["mov_text", "mov_text"])
        #expect(streams.map(\.language) == [Language("fr"), .english])
        #expect(streams.map(\.title) == ["French (automatic)", "English (automatic, basic quality)"])
        let handlers = String(decoding: try Tool.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "s", "-show_entries", "stream_tags=handler_name",
                                                                          "-of", "default=nw=1:nk=1", out]), as: UTF8.self)
        #expect(handlers.split(separator: "\n") == ["French (automatic)", "English (automatic, basic quality)"])

        let decoded = try EmbeddedSubtitles.read(path: out)
        try #require(decoded.count == 2)
        expectDecodesBack(decoded[0], to: Self.cues)
        // A 3GPP text track shows one sample at a time: the notice is left to the title.
        #expect(decoded[1].events.map { ASSEventText($0.text).lines } == [["One, two", "three"], ["four five"]])
        #expect(decoded[1].events.map(\.start) == [1000, 3000])
    }

    @Test func matroskaGetsSRTAndASSTracksWithStylesAndTheNoticeKept() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let source = Fixtures.path("librivox-0870.mkv")
        let out = work.path("talk.subtitled.mkv")
        let tracks: [SubtitleTrack] = [
            .text(cues: Self.cues, language: Language("fr"), title: "French"),
            .styled(Self.basicScript, language: .english, title: SubtitleTrack.title(language: .english, tier: .basic)),
        ]
        let report = try SubtitleMux(input: source, output: out, tracks: tracks, outputPolicy: OutputPolicy(ledgers: [])).run()
        #expect(report.added.map(\.codec) == ["subrip", "ass"])
        // Matroska takes the bibliographic code.
        #expect(report.added.map(\.languageTag) == ["fre", "eng"])
        try expectStreamsCopied(from: source, to: out, maps: ["0:v", "0:a"])

        let streams = try MediaProbe(path: out).subtitleStreams
        #expect(streams.map(\.title) == ["French", "English (automatic, basic quality)"])
        let decoded = try EmbeddedSubtitles.read(path: out)
        try #require(decoded.count == 2)
        expectDecodesBack(decoded[0], to: Self.cues)
        let styled = decoded[1]
        #expect(styled.header.contains("Style: Basic,DejaVu Sans,20"))
        #expect(styled.events.map(\.style) == ["Notice", "Basic", "Basic"])
        #expect(styled.events.map(\.text) == ["Basic recognition", "One, two\\Nthree", "{\\i1}four{\\i0} five"])
        #expect(styled.events.map(\.end) == [7000, 2500, 4000])
    }

    @Test func existingSubtitleTracksAreKeptCopiedOrConverted() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let srt = work.directory.appendingPathComponent("old.srt")
        try SRTWriter(cues: Self.cues).write(to: srt, policy: OutputPolicy(ledgers: []))
        let source = try work.ffmpeg(["-i", Fixtures.path("librivox-0930.mkv"), "-i", srt.path, "-map", "0", "-map", "1", "-c", "copy",
                                      "-metadata:s:s:0", "language=ger", "-disposition:s:0", "forced"], output: "with-srt.mkv")
        let new = SubtitleTrack.text(cues: [Cue(start: 500, end: 900, lines: ["New"])], language: .english, title: "English")

        // Matroska holds SubRip: the old track is copied packet for packet, ahead of the new one.
        let mkv = work.path("copy.mkv")
        let kept = try SubtitleMux(input: source, output: mkv, tracks: [new], outputPolicy: OutputPolicy(ledgers: [])).run()
        #expect(kept.warnings.isEmpty)
        try expectStreamsCopied(from: source, to: mkv, maps: ["0:v", "0:a", "0:s"].map { $0 == "0:s" ? "0:s:0" : $0 })
        #expect(try MediaProbe(path: mkv).subtitleStreams.map(\.languageTag) == ["ger", "eng"])

        // MP4 does not: the old track becomes mov_text with its language and forced flag.
        let mp4 = work.path("converted.mp4")
        let converted = try SubtitleMux(input: source, output: mp4, tracks: [new], outputPolicy: OutputPolicy(ledgers: [])).run()
        #expect(converted.warnings == [.subtitleConverted(index: 2, from: "subrip", to: "mov_text")])
        let streams = try MediaProbe(path: mp4).subtitleStreams
        #expect(streams.map(\.languageTag) == ["deu", "eng"])
        #expect(streams.map(\.isForced) == [true, false])
        // The old track's text as the SRT holds it (its braces written as libass shows them).
        let decoded = try EmbeddedSubtitles.read(path: mp4)
        expectDecodesBack(decoded[0], to: try SubtitleReader.read(fileAt: srt).cues)
    }

    /// Fonts an ASS track needs travel with the file in Matroska; MP4 cannot hold them, and says so.
    @Test func fontAttachmentsAreKeptInMatroskaAndSaidLostInMP4() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let font = String(decoding: try Tool.run("/usr/bin/fc-match", ["-f", "%{file}", "DejaVu Sans"]), as: UTF8.self)
        let source = try work.ffmpeg(["-i", Fixtures.path("librivox-0870.mkv"), "-attach", font, "-metadata:s:t", "mimetype=application/x-truetype-font",
                                      "-map", "0", "-c", "copy"], output: "fonts.mkv")
        let track = SubtitleTrack.styled(Self.basicScript, language: .english, title: "English")
        func attachments(_ path: String) throws -> [String] {
            String(decoding: try Tool.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "t", "-show_entries", "stream=codec_name",
                                                               "-of", "default=nw=1:nk=1", path]), as: UTF8.self).split(separator: "\n").map(String.init)
        }
        let mkv = work.path("fonts.subtitled.mkv")
        #expect(try SubtitleMux(input: source, output: mkv, tracks: [track], outputPolicy: OutputPolicy(ledgers: [])).run().warnings.isEmpty)
        #expect(try attachments(mkv) == ["ttf"])
        let mp4 = work.path("fonts.subtitled.mp4")
        let report = try SubtitleMux(input: source, output: mp4, tracks: [track], outputPolicy: OutputPolicy(ledgers: [])).run()
        // FLAC is no MP4 audio either: it is re-encoded to AAC, and said.
        #expect(report.warnings == [.audioReencoded(index: 1, from: "flac"), .streamDropped(index: 2, codec: "ttf")])
        #expect(try attachments(mp4).isEmpty)
    }

    @Test func overlappingEventsAreShortenedForMovTextAndSaidSo() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let overlapping = [Cue(start: 1000, end: 3000, lines: ["First"]), Cue(start: 2000, end: 4000, lines: ["Second"])]
        let out = work.path("overlap.mp4")
        let report = try SubtitleMux(input: Fixtures.path("librivox.mp4"), output: out,
                                     tracks: [.text(cues: overlapping, language: .english, title: "English")], outputPolicy: OutputPolicy(ledgers: [])).run()
        #expect(report.warnings == [.subtitlesShortened(track: "English", count: 1)])
        #expect(try EmbeddedSubtitles.read(path: out)[0].events.map(\.end) == [2000, 4000])
        // Matroska shows both at once, as written.
        let mkv = work.path("overlap.mkv")
        let kept = try SubtitleMux(input: Fixtures.path("librivox.mp4"), output: mkv,
                                   tracks: [.text(cues: overlapping, language: .english, title: "English")], outputPolicy: OutputPolicy(ledgers: [])).run()
        #expect(kept.warnings.isEmpty)
    }

    @Test func refusesContainersWithoutTextTracksAndFilesItDidNotWrite() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let track = SubtitleTrack.text(cues: Self.cues, language: .english, title: "English")
        #expect(throws: BurnError.subtitlesUnsupported(path: work.path("out.webm"), codec: "subrip")) {
            try SubtitleMux(input: Fixtures.path("two_cities.webm"), output: work.path("out.webm"), tracks: [track], outputPolicy: OutputPolicy(ledgers: [])).run()
        }
        #expect(!FileManager.default.fileExists(atPath: work.path("out.webm")))

        let mine = work.path("mine.mkv")
        try Data("the user's own file".utf8).write(to: URL(fileURLWithPath: mine))
        let ledger = OutputPolicy(ledgers: [OutputLedger(folder: StateFolder(tree: work.directory.appendingPathComponent("ledger")))])
        #expect(throws: OutputError.notWrittenByCapforge(path: mine)) {
            try SubtitleMux(input: Fixtures.path("librivox.mp4"), output: mine, tracks: [track], outputPolicy: ledger).run()
        }
        #expect(try String(contentsOfFile: mine, encoding: .utf8) == "the user's own file")
        // The input itself is never the output, even with --overwrite.
        let input = work.path("input.mkv")
        try FileManager.default.copyItem(atPath: Fixtures.path("librivox-0870.mkv"), toPath: input)
        var overwrite = ledger
        overwrite.overwrite = true
        #expect(throws: OutputError.wouldReplaceInput(path: input)) {
            try SubtitleMux(input: input, output: input, tracks: [track], outputPolicy: overwrite).run()
        }
    }

    /// A track never makes the copy longer than the video: cues past the end are cut there or
    /// left out, a track with nothing left is not written, and each is said, naming the file.
    @Test func cuesAreKeptWithinTheVideoAndEmptyTracksAreLeftOut() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let source = Fixtures.path("librivox-0930.mkv")
        let end = Int((try #require(MediaProbe(path: source).duration) * 1000).rounded())
        let long = SubtitleTrack.text(cues: [Cue(start: 1000, end: 2000, lines: ["In"]), Cue(start: 3000, end: 864_000_000, lines: ["Past the end"]),
                                             Cue(start: end, end: end + 500, lines: ["After"])],
                                      language: .english, title: "English", source: "/subs/long.srt")
        let late = SubtitleTrack.text(cues: [Cue(start: end + 1000, end: end + 2000, lines: ["Late"])], language: .english, title: "Late", source: "/subs/late.srt")
        let empty = SubtitleTrack.text(cues: [], language: nil, title: "Empty", source: "/subs/empty.srt")
        let out = work.path("clamped.mkv")
        let report = try SubtitleMux(input: source, output: out, tracks: [long, late, empty], outputPolicy: OutputPolicy(ledgers: [])).run()
        #expect(report.warnings == [
            .cuesClamped(track: "/subs/long.srt", cut: 1, dropped: 1, videoEnd: Double(end) / 1000),
            .cuesClamped(track: "/subs/late.srt", cut: 0, dropped: 1, videoEnd: Double(end) / 1000),
            .emptyTrackLeftOut(track: "/subs/late.srt"), .emptyTrackLeftOut(track: "/subs/empty.srt"),
        ])
        #expect(report.added.map(\.title) == ["English"])
        let decoded = try EmbeddedSubtitles.read(path: out)
        #expect(decoded.map { $0.events.map(\.start) } == [[1000, 3000]])
        #expect(decoded.map { $0.events.map(\.end) } == [[2000, end]])
        let duration = try #require(MediaProbe(path: out).duration)
        #expect(abs(duration - Double(end) / 1000) < 0.05)

        // Asked for cues, nothing left is an error naming the files, and no file is written.
        var strict = SubtitleMux(input: source, output: work.path("nothing.mkv"), tracks: [late, empty], outputPolicy: OutputPolicy(ledgers: []))
        strict.requiresCues = true
        #expect(throws: MuxError.noCues(tracks: ["/subs/late.srt", "/subs/empty.srt"], videoEnd: Double(end) / 1000)) { try strict.run() }
        #expect(!FileManager.default.fileExists(atPath: work.path("nothing.mkv")))
    }

    /// As FFmpeg's CLI: a codec tag is kept where it means the same codec in the output, so raw
    /// video goes into Matroska under its FourCC; MP4 cannot hold it, which is an error, since
    /// a copy without its picture is no subtitled video.
    @Test func rawVideoGoesIntoMatroskaAndIsRefusedByMP4() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let source = try work.testClip("raw.mkv", size: "64x48", rate: 5, seconds: 1, encoder: ["-pix_fmt", "yuv420p", "-c:v", "rawvideo"])
        let track = SubtitleTrack.text(cues: [Cue(start: 100, end: 500, lines: ["Raw"])], language: .english, title: "English")
        let mkv = work.path("raw.subtitled.mkv")
        #expect(try SubtitleMux(input: source, output: mkv, tracks: [track], outputPolicy: OutputPolicy(ledgers: [])).run().warnings.isEmpty)
        try expectStreamsCopied(from: source, to: mkv, maps: ["0:v"])
        #expect(String(decoding: try Tool.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=codec_tag_string",
                                                                   "-of", "default=nw=1:nk=1", mkv]), as: UTF8.self) == "I420\n")
        let mp4 = work.path("raw.mp4")
        #expect(throws: MuxError.streamNotStorable(path: source, index: 0, codec: "rawvideo", container: "mp4", matroskaHolds: true)) {
            try SubtitleMux(input: source, output: mp4, tracks: [track], outputPolicy: OutputPolicy(ledgers: [])).run()
        }
        #expect(!FileManager.default.fileExists(atPath: mp4))
    }

    /// The MOV muxer writes a timecode track again from the video's `timecode` tag, so what is
    /// said left out is what is missing: nothing in MOV, the track (not the tag) in Matroska.
    @Test func aTimecodeTrackIsKeptInMOVAndSaidLeftOutOfMatroska() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let source = try work.testClip("tc.mov", size: "64x48", rate: 25, seconds: 1, encoder: ["-timecode", "01:00:00:00", "-c:v", "libx264"])
        let track = SubtitleTrack.text(cues: [Cue(start: 100, end: 500, lines: ["Time"])], language: .english, title: "English")
        func streams(_ path: String) throws -> String {
            String(decoding: try Tool.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_tag_string:stream_tags=timecode",
                                                               "-of", "csv=p=0", path]), as: UTF8.self)
        }
        let mov = work.path("tc.subtitled.mov")
        #expect(try SubtitleMux(input: source, output: mov, tracks: [track], outputPolicy: OutputPolicy(ledgers: [])).run().warnings.isEmpty)
        #expect(try streams(mov).contains("data,tmcd,01:00:00:00"))
        let mkv = work.path("tc.subtitled.mkv")
        #expect(try SubtitleMux(input: source, output: mkv, tracks: [track], outputPolicy: OutputPolicy(ledgers: [])).run().warnings
                == [.timecodeLeftOut(index: 1, tagKept: true)])
        #expect(try streams(mkv) == "video,[0][0][0][0],01:00:00:00\nsubtitle,[0][0][0][0]\n")
    }

    /// A subtitle file given as the video makes no file without a picture or sound.
    @Test func aSubtitleFileIsNoVideo() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let srt = work.directory.appendingPathComponent("sub.srt")
        try SRTWriter(cues: Self.cues).write(to: srt, policy: OutputPolicy(ledgers: []))
        let track = SubtitleTrack.text(cues: Self.cues, language: .english, title: "English")
        #expect(throws: MuxError.subtitleFileAsVideo(path: srt.path)) {
            try SubtitleMux(input: srt.path, output: work.path("sub.mkv"), tracks: [track], outputPolicy: OutputPolicy(ledgers: [])).run()
        }
        #expect(!FileManager.default.fileExists(atPath: work.path("sub.mkv")))
    }

    @Test func aCancelledMuxLeavesNoFile() throws {
        let work = try BurnWorkspace()
        defer { work.remove() }
        let cancellation = Cancellation()
        cancellation.cancel()
        let out = work.path("cancelled.mkv")
        #expect(throws: Cancelled.self) {
            try SubtitleMux(input: Fixtures.path("librivox.mp4"), output: out,
                            tracks: [.text(cues: Self.cues, language: .english, title: "English")], outputPolicy: OutputPolicy(ledgers: [])).run(cancellation: cancellation)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.directory.path).isEmpty)
    }

    @Test func outputKeepsTheMP4FamilyAndOtherwiseTakesMatroska() {
        #expect(SubtitleMux.outputExtension(for: URL(fileURLWithPath: "/v/a.mp4"), container: "mov,mp4,m4a,3gp,3g2,mj2") == "mp4")
        #expect(SubtitleMux.outputExtension(for: URL(fileURLWithPath: "/v/a.MOV"), container: "mov,mp4,m4a,3gp,3g2,mj2") == "mov")
        #expect(SubtitleMux.outputExtension(for: URL(fileURLWithPath: "/v/a.webm"), container: "matroska,webm") == "mkv")
        #expect(SubtitleMux.outputExtension(for: URL(fileURLWithPath: "/v/a.avi"), container: "avi") == "mkv")
    }
}
