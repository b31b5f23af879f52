import CapforgeCore
import Foundation
import Media
import TestSupport
import Testing

/// Every good fixture's audio, and both tracks of the dual-language file, against the ffmpeg CLI.
@Suite struct ExtractionMatchesFFmpegTests {
    static let cases: [(String, Int)] = [
        ("librivox.mp4", 1), ("korean.mp4", 1), ("startoffset.mp4", 1), ("dual-language.mkv", 1), ("dual-language.mkv", 2),
        ("librivox-0870.mkv", 1), ("librivox-0880.mkv", 1), ("librivox-0890.mkv", 1), ("librivox-0920.mkv", 1),
        ("librivox-0930.mkv", 1), ("silence-music.mkv", 1), ("pcm-audio.mov", 1), ("surround.mov", 1), ("two_cities.webm", 1),
    ]

    @Test(arguments: cases)
    func sampleForSample(_ name: String, _ stream: Int) throws {
        let path = Fixtures.path(name)
        let (audio, report) = try AudioExtractor(path: path, selection: .index(stream)).extractAll()
        let reference = try Tool.ffmpegReference(path, stream: stream)

        // The CLI starts at the first decoded sample; we start at the file's start_time, so our
        // output leads by exactly the stream's offset from it (Opus pre-skip, Vorbis, etc.).
        let offset = try Tool.firstFrameOffset(path, stream: stream)
        #expect(abs(report.leadingSilenceSamples - Int((offset * 16_000).rounded())) <= 1)
        #expect(audio.samples[..<report.leadingSilenceSamples].allSatisfy { $0 == 0 })

        let ours = audio.samples[report.leadingSilenceSamples...]
        #expect(ours.count == reference.count)
        var maxDiff: Float = 0
        for (a, b) in zip(ours, reference) { maxDiff = max(maxDiff, abs(a - b)) }
        #expect(maxDiff <= 1e-6, "max |diff| \(maxDiff)")
        #expect(report.warnings.isEmpty, "\(report.warnings)")
    }

    @Test func streamsInBoundedBlocks() throws {
        var largest = 0
        var total = 0
        let report = try AudioExtractor(path: Fixtures.path("silence-music.mkv")).extract { block in
            largest = max(largest, block.count)
            total += block.count
        }
        #expect(total == report.sampleCount)
        #expect(total > 59 * 16_000)
        #expect(largest <= 16_000, "a block of \(largest) samples: extraction is not streaming")
    }
}
