import Testing
@testable import Speech

@Suite struct WordAssemblyTests {
    static let eot: Int32 = 50256

    static func token(_ id: Int32, _ bytes: [UInt8], _ start: Int64, _ end: Int64, p: Float = 0.9, dtw: Int64 = -1) -> DecodedToken {
        DecodedToken(id: id, bytes: bytes, probability: p, start: start, end: end, dtwTime: dtw)
    }

    static func token(_ id: Int32, _ text: String, _ start: Int64, _ end: Int64, p: Float = 0.9, dtw: Int64 = -1) -> DecodedToken {
        token(id, Array(text.utf8), start, end, p: p, dtw: dtw)
    }

    @Test func wordsComeFromBytesAcrossTokens() {
        // "é" split over two tokens, as multilingual BPE does: per-token strings would break it.
        let segment = DecodedSegment(start: 0, end: 300, noSpeechProbability: 0.01, tokens: [
            Self.token(50363, "[_BEG_]", 0, 0),
            Self.token(1, " caf", 10, 40, p: 0.8), Self.token(2, [0xC3], 40, 45, p: 0.6), Self.token(3, [0xA9], 45, 50, p: 0.7),
            Self.token(4, " au", 60, 80), Self.token(5, " lait", 80, 120), Self.token(6, ".", 120, 125, p: 0.5),
            Self.token(50400, "[_TT_]", 125, 125),
        ])
        let words = WordAssembler.words(in: [segment], endOfText: Self.eot, timing: .tokens, origin: 10, audioEnd: 13)
        #expect(words.map(\.text) == ["café", "au", "lait."])
        #expect(words[0].start == 10.1 && words[0].end == 10.5)
        #expect(abs(words[0].confidence - 0.7) < 1e-6)
        #expect(abs(words[2].confidence - 0.7) < 1e-6)
        #expect(words[2].end == 11.25)
        #expect(words.allSatisfy { $0.tier == .modern && $0.engine == "whisper" })
    }

    @Test func hybridTimingStartsAfterThePreviousWordWasEmitted() {
        let segment = DecodedSegment(start: 0, end: 500, noSpeechProbability: 0, tokens: [
            Self.token(1, " one", 20, 60, dtw: 58),
            // The token heuristic swallows the pause: t0 = 70, but DTW saw "one" emitted at 150.
            Self.token(2, " two", 70, 200, dtw: 190),
        ])
        let plain = WordAssembler.words(in: [segment], endOfText: Self.eot, timing: .tokens, origin: 0, audioEnd: 5)
        let hybrid = WordAssembler.words(in: [segment], endOfText: Self.eot, timing: .hybridDTW, origin: 0, audioEnd: 5)
        #expect(plain[1].start == 0.7)
        #expect(hybrid[0].start == 0.2)
        let paused = DecodedSegment(start: 0, end: 500, noSpeechProbability: 0, tokens: [
            Self.token(1, " one", 20, 60, dtw: 150), Self.token(2, " two", 70, 200, dtw: 190),
        ])
        let shifted = WordAssembler.words(in: [paused], endOfText: Self.eot, timing: .hybridDTW, origin: 0, audioEnd: 5)
        #expect(shifted[1].start == 1.5 && shifted[1].end == 2.0)
    }

    @Test func timesStayInsideSegmentAndAudio() {
        let segment = DecodedSegment(start: 100, end: 300, noSpeechProbability: 0, tokens: [
            Self.token(1, " early", 80, 150), Self.token(2, " late", 250, 420),
        ])
        let words = WordAssembler.words(in: [segment], endOfText: Self.eot, timing: .tokens, origin: 0, audioEnd: 2.8)
        #expect(words[0].start == 1.0)
        #expect(words[1].end == 2.8)
    }
}

@Suite struct RepetitionGuardTests {
    /// One token per word; the same word always gets the same id, as BPE would.
    private func segment(_ words: [String]) -> DecodedSegment {
        var ids: [String: Int32] = [:]
        var tokens: [DecodedToken] = []
        for (i, word) in words.enumerated() {
            let id = ids[word] ?? Int32(ids.count + 10)
            ids[word] = id
            let start = Int64(i * 30)
            tokens.append(WordAssemblyTests.token(id, " " + word, start, start + 30))
        }
        return DecodedSegment(start: 0, end: Int64(words.count * 30), noSpeechProbability: 0, tokens: tokens)
    }

    @Test func phraseRepeatedThreeTimesIsALoop() {
        let looping = segment("and then he said and then he said and then he said it".split(separator: " ").map(String.init))
        #expect(RepetitionGuard.loopingSpan(in: [looping], endOfText: WordAssemblyTests.eot) == 0..<1)
        let collapsed = RepetitionGuard.collapsed([looping], endOfText: WordAssemblyTests.eot)
        let text = WordAssembler.words(in: collapsed, endOfText: WordAssemblyTests.eot, timing: .tokens, origin: 0, audioEnd: 100)
            .map(\.text)
        #expect(text == ["and", "then", "he", "said", "it"])
    }

    @Test func ordinarySpeechAndShortRepeatsAreNotLoops() {
        let normal = segment("he was not an ill disposed young man".split(separator: " ").map(String.init))
        #expect(RepetitionGuard.loopingSpan(in: [normal], endOfText: WordAssemblyTests.eot) == nil)
        let emphatic = segment(["no", "no", "no", "please", "said", "it", "twice", "said", "it", "twice"])
        #expect(RepetitionGuard.loopingSpan(in: [emphatic, normal], endOfText: WordAssemblyTests.eot) == nil)
    }

    @Test func sameSegmentOverAndOverIsALoopAcrossSegments() {
        let sentence = ["he", "might", "even", "have", "been", "made", "amiable"]
        let segments = [segment(["so", "it", "began"])] + Array(repeating: segment(sentence), count: 3) + [segment(["the", "end"])]
        #expect(RepetitionGuard.loopingSpan(in: segments, endOfText: WordAssemblyTests.eot) == 1..<4)
        let collapsed = RepetitionGuard.collapsed(Array(segments[1..<4]), endOfText: WordAssemblyTests.eot)
        #expect(collapsed.count == 1)
        #expect(WordAssembler.words(in: collapsed, endOfText: WordAssemblyTests.eot, timing: .tokens, origin: 0, audioEnd: 100)
            .map(\.text) == sentence)
    }

    @Test func oneTokenLoopingIsALoop() {
        var tokens = [WordAssemblyTests.token(7, " ha", 0, 10)]
        for i in Int64(1)...9 {
            tokens.append(WordAssemblyTests.token(8, "ha", i * 10, i * 10 + 10))
        }
        let looping = DecodedSegment(start: 0, end: 100, noSpeechProbability: 0, tokens: tokens)
        #expect(RepetitionGuard.loopingSpan(in: [segment(["fine"]), looping], endOfText: WordAssemblyTests.eot) == 1..<2)
        let collapsed = RepetitionGuard.collapsed([looping], endOfText: WordAssemblyTests.eot)
        #expect(WordAssembler.words(in: collapsed, endOfText: WordAssemblyTests.eot, timing: .tokens, origin: 0, audioEnd: 1)
            .map(\.text) == ["haha"])
    }
}
