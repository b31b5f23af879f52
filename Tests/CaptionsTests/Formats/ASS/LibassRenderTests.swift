import CLibass
import CapforgeCore
import Foundation
import Testing

@testable import Captions

/// Renders our ASS output with libass itself: the basic-tier notice must be drawn when the
/// transcript has basic-tier words, and not otherwise.
@Suite struct LibassRenderTests {
    static let video = VideoSize(width: 1280, height: 720)

    /// The cue on screen at 1 s is modern, so only the notice can put ink in the top half.
    static func render(_ transcript: Transcript, atMs time: Int) throws -> [LibassFrame.Image] {
        let style = try StyleSheet.load(named: "default", in: Fixtures.stylesFolder)
        let ass = ASSWriter(cues: Fixtures.mixedCues, transcript: transcript, video: video, style: style).render()
        let library = try LibassLibrary()
        let renderer = try LibassRenderer(library: library, width: video.width, height: video.height)
        let track = try LibassTrack(library: library, text: ass)
        return renderer.render(track, atMs: time).images
    }

    @Test func noticeIsDrawnOnlyWithBasicTierWords() throws {
        let withBasic = try Self.render(Fixtures.mixedTranscript, atMs: 1000)
        let modernOnly = try Self.render(Fixtures.modernTranscript, atMs: 1000)
        let top = { (images: [LibassFrame.Image]) in images.filter { $0.y + $0.height <= Self.video.height / 2 } }
        let bottom = { (images: [LibassFrame.Image]) in images.filter { $0.y >= Self.video.height / 2 } }

        #expect(!bottom(withBasic).isEmpty && !bottom(modernOnly).isEmpty, "the caption itself is drawn in both")
        #expect(top(withBasic).contains { $0.inkedPixels > 0 }, "the notice is drawn at the top")
        #expect(top(modernOnly).isEmpty, "no notice without basic-tier words")
        // Between cues, only the notice remains.
        #expect(try !Self.render(Fixtures.mixedTranscript, atMs: 1800).isEmpty)
        #expect(try Self.render(Fixtures.modernTranscript, atMs: 1800).isEmpty)
    }
}

/// `--karaoke`: libass lights the words in order as their times pass, grey before, white after.
@Suite struct KaraokeRenderTests {
    static let words = ["One", "two", "three", "four"].enumerated().map { index, text in
        Word(text: text, start: 1 + Double(index) * 0.5, end: 1.4 + Double(index) * 0.5, confidence: 0.9, tier: .modern, engine: "whisper")
    }

    /// Inked pixels of white (lit) and of grey (still to come) text at `time`.
    static func ink(atMs time: Int) throws -> (lit: Int, coming: Int) {
        let style = try StyleSheet.load(named: "default", in: Fixtures.stylesFolder)
        let cue = Cue(start: 1000, end: 3200, lines: ["One two three four"], words: words)
        let transcript = Transcript(language: .english, words: words, duration: 4)
        let ass = ASSWriter(cues: [cue], transcript: transcript, video: LibassRenderTests.video, style: style, karaoke: true).render()
        let library = try LibassLibrary()
        let renderer = try LibassRenderer(library: library, width: 1280, height: 720)
        let images = renderer.render(try LibassTrack(library: library, text: ass), atMs: time).images
        let fill = { (rgb: UInt32) in images.filter { $0.colour >> 8 == rgb }.reduce(0) { $0 + $1.inkedPixels } }
        return (fill(0xFFFFFF), fill(0x808080))
    }

    @Test func theHighlightMovesWordByWord() throws {
        let frames = try [1050, 1600, 2100, 2600, 3150].map { try Self.ink(atMs: $0) }
        #expect(frames.first!.lit < frames.first!.coming, "\(frames)")
        #expect(frames.last!.coming == 0 && frames.last!.lit > 0, "\(frames)")
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.lit < $1.lit && $0.coming > $1.coming }, "\(frames)")
    }

    @Test func kfSweepsFollowTheWordsAndWebVTTStampsLieInsideTheCue() throws {
        let cue = Cue(start: 900, end: 3200, lines: ["One two", "three four"], words: Self.words)
        let transcript = Transcript(language: .english, words: Self.words, duration: 4)
        let ass = ASSWriter(cues: [cue], transcript: transcript, video: LibassRenderTests.video, style: try Fixtures.goldenStyle(), karaoke: true).render()
        #expect(ass.contains("{\\2c&H808080&}{\\k10}{\\kf50}One {\\kf50}two\\N{\\kf50}three {\\kf40}four"), "\(ass)")
        let vtt = WebVTTWriter(cues: [cue], transcript: transcript, karaoke: true).render()
        #expect(vtt.contains("<00:00:01.000>One <00:00:01.500>two\n<00:00:02.000>three <00:00:02.500>four"), "\(vtt)")
    }
}

// MARK: - A minimal libass wrapper for this test (production burn-in has its own in Media).

enum LibassError: Error, CustomStringConvertible {
    case initFailed(String)
    var description: String {
        switch self { case .initFailed(let what): return "libass could not \(what)" }
    }
}

final class LibassLibrary {
    fileprivate let handle: OpaquePointer
    init() throws {
        guard let handle = ass_library_init() else { throw LibassError.initFailed("initialise its library") }
        shim_ass_silence(handle)
        self.handle = handle
    }
    deinit { ass_library_done(handle) }
}

final class LibassRenderer {
    private let handle: OpaquePointer
    // The renderer must not outlive its library.
    private let library: LibassLibrary

    init(library: LibassLibrary, width: Int, height: Int) throws {
        guard let handle = ass_renderer_init(library.handle) else { throw LibassError.initFailed("create a renderer") }
        self.handle = handle
        self.library = library
        ass_set_frame_size(handle, Int32(width), Int32(height))
        ass_set_storage_size(handle, Int32(width), Int32(height))
        ass_set_fonts(handle, nil, "DejaVu Sans", Int32(ASS_FONTPROVIDER_AUTODETECT.rawValue), nil, 1)
    }
    deinit { ass_renderer_done(handle) }

    /// Copies what libass drew, since its image list is only valid until the next call.
    func render(_ track: LibassTrack, atMs time: Int) -> LibassFrame {
        var changed: Int32 = 0
        var images: [LibassFrame.Image] = []
        var node = ass_render_frame(handle, track.handle, Int64(time), &changed)
        while let image = node?.pointee {
            var inked = 0
            for row in 0..<Int(image.h) {
                for column in 0..<Int(image.w) where image.bitmap[row * Int(image.stride) + column] > 0 { inked += 1 }
            }
            images.append(LibassFrame.Image(x: Int(image.dst_x), y: Int(image.dst_y), width: Int(image.w),
                                            height: Int(image.h), colour: image.color, inkedPixels: inked))
            node = image.next
        }
        return LibassFrame(images: images)
    }
}

final class LibassTrack {
    fileprivate let handle: UnsafeMutablePointer<ASS_Track>
    private let library: LibassLibrary

    init(library: LibassLibrary, text: String) throws {
        var bytes = Array(text.utf8CString)
        let track = bytes.withUnsafeMutableBufferPointer { buffer in
            ass_read_memory(library.handle, buffer.baseAddress, buffer.count - 1, nil)
        }
        guard let track else { throw LibassError.initFailed("parse the ASS text") }
        self.handle = track
        self.library = library
    }
    deinit { ass_free_track(handle) }
}

struct LibassFrame {
    struct Image {
        var x: Int, y: Int, width: Int, height: Int
        var colour: UInt32
        var inkedPixels: Int
    }
    var images: [Image]
}
