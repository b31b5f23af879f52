@testable import Burn
import Media
import Testing

/// Caption colours are converted with the video's own matrix and range, as players decode it.
@Suite struct ColourMatrixTests {
    @Test func untaggedVideoUsesBT709ForHDAndBT601ForSD() {
        let hd = ColourMatrix(nil, fullRange: false, width: 1280, height: 720)
        let sd = ColourMatrix(nil, fullRange: false, width: 640, height: 360)
        let portraitHD = ColourMatrix(nil, fullRange: false, width: 720, height: 1280)
        let taggedSD = ColourMatrix(.bt709, fullRange: false, width: 640, height: 360)
        #expect(hd.kr == 0.2126 && portraitHD.kr == 0.2126 && taggedSD.kr == 0.2126)
        #expect(sd.kr == 0.299)
        // Yellow (255, 255, 0): Y' is 0.886 in BT.601 and 0.9278 in BT.709.
        #expect(sd.convert(red: 255, green: 255, blue: 0) == (y: 210, cb: 16, cr: 146))
        #expect(hd.convert(red: 255, green: 255, blue: 0) == (y: 219, cb: 16, cr: 138))
    }

    @Test func limitedRangeKeepsHeadroomAndFullRangeUsesAllCodes() {
        let limited = ColourMatrix(.bt709, fullRange: false, width: 1920, height: 1080)
        let jpeg = ColourMatrix(.bt709, fullRange: true, width: 1920, height: 1080)
        #expect(!limited.fullRange && jpeg.fullRange)
        #expect(limited.convert(red: 255, green: 255, blue: 255) == (y: 235, cb: 128, cr: 128))
        #expect(limited.convert(red: 0, green: 0, blue: 0) == (y: 16, cb: 128, cr: 128))
        #expect(jpeg.convert(red: 255, green: 255, blue: 255) == (y: 255, cb: 128, cr: 128))
        #expect(jpeg.convert(red: 0, green: 0, blue: 0) == (y: 0, cb: 128, cr: 128))
    }
}
