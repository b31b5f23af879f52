import CapforgeCore
import Foundation
import Media
import TestSupport
import Testing

@Suite struct StreamSelectionTests {
    let dual = Fixtures.path("dual-language.mkv")

    @Test(arguments: [("en", 1), ("eng", 1), ("English", 1), ("es", 2), ("spa", 2), ("es-MX", 2)])
    func byLanguage(_ language: String, _ expected: Int) throws {
        var count = 0
        let report = try AudioExtractor(path: dual, selection: .language(language)).extract { count += $0.count }
        #expect(report.streamIndex == expected)
        #expect(count == report.sampleCount)
    }

    @Test func defaultDispositionWins() throws {
        let report = try AudioExtractor(path: dual).extract { _ in }
        #expect(report.streamIndex == 1)
        #expect(report.languageTag == "eng")
    }

    @Test func unknownLanguageListsWhatIsPresent() {
        #expect(throws: MediaError.unknownLanguage(path: dual, requested: "fr", present: ["eng", "spa"])) {
            try AudioExtractor(path: dual, selection: .language("fr")).extract { _ in }
        }
    }

    @Test func videoStreamIndexIsRejected() {
        #expect(throws: MediaError.noSuchStream(path: dual, index: 0, audioStreams: [1, 2])) {
            try AudioExtractor(path: dual, selection: .index(0)).extract { _ in }
        }
    }

    @Test func noAudioTrack() {
        let path = Fixtures.path("no-audio.mp4")
        #expect(throws: MediaError.noAudio(path: path)) { try AudioExtractor(path: path).extract { _ in } }
    }

    @Test func cancellationStopsExtraction() {
        let cancellation = CapforgeCore.Cancellation()
        cancellation.cancel()
        #expect(throws: Cancelled()) {
            try AudioExtractor(path: dual).extract(cancellation: cancellation) { _ in }
        }
    }
}
