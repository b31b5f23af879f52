import CFFmpeg
@testable import Media
import TestSupport
import Testing

/// How a stream's tags become the matrix and range captions are drawn in.
@Suite struct VideoFormatTests {
    @Test func jpegPixelFormatsAreFullRangeAndTagsNameTheMatrix() {
        #expect(VideoFormat.isJPEGFormat(AV_PIX_FMT_YUVJ420P) && VideoFormat.isJPEGFormat(AV_PIX_FMT_YUVJ444P))
        #expect(!VideoFormat.isJPEGFormat(AV_PIX_FMT_YUV420P))
        #expect(VideoFormat.matrix(AVCOL_SPC_BT709) == .bt709)
        #expect(VideoFormat.matrix(AVCOL_SPC_SMPTE170M) == .bt601 && VideoFormat.matrix(AVCOL_SPC_BT470BG) == .bt601)
        #expect(VideoFormat.matrix(AVCOL_SPC_BT2020_NCL) == .bt2020)
        // Untagged (and tags no caption colour is converted with) leave the choice to the frame size.
        #expect(VideoFormat.matrix(AVCOL_SPC_UNSPECIFIED) == nil && VideoFormat.matrix(AVCOL_SPC_RGB) == nil)
    }

    @Test func untaggedClipIsLimitedRangeWithItsRateAndSquarePixels() throws {
        let input = try InputFile(path: Fixtures.path("librivox.mp4"))
        let index = try #require(input.streams.first { $0.kind == .video }?.index)
        let format = input.videoFormat(ofStream: index)
        #expect((format.width, format.height, format.rotation) == (320, 180, 0))
        #expect(!format.fullRange && format.matrix == nil)
        #expect(format.frameRate == Rational(15, 1))
        #expect(format.sampleAspect == Rational(1, 1))
    }
}
