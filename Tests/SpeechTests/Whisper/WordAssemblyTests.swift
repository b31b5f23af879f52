import CapforgeCore
import Foundation
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
        // The evidence: café's doubtful middle piece, and the segment's mean log-probability
        // over its six text tokens (special tokens are not text).
        #expect(words[0].evidence?.tokenCount == 3 && words[1].evidence?.tokenCount == 1)
        #expect(abs((words[0].evidence?.minimumTokenProbability ?? 0) - 0.6) < 1e-6)
        let segmentLogProbability = [0.8, 0.6, 0.7, 0.9, 0.9, 0.5].map { log($0) }.reduce(0, +) / 6
        #expect(words.allSatisfy { abs(($0.evidence?.segmentLogProbability ?? 0) - segmentLogProbability) < 1e-6 })
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
    static let eot = WordAssemblyTests.eot

    /// One token per word, 30 cs each from `at`; the same word always gets the same id, as BPE would.
    private func segment(_ words: [String], at start: Int64 = 0) -> DecodedSegment {
        var ids: [String: Int32] = [:]
        var tokens: [DecodedToken] = []
        for (i, word) in words.enumerated() {
            let id = ids[word] ?? Int32(word.unicodeScalars.reduce(0) { $0 &+ Int32($1.value) } % 40000 + 10)
            ids[word] = id
            let t0 = start + Int64(i * 30)
            tokens.append(WordAssemblyTests.token(id, " " + word, t0, t0 + 30))
        }
        return DecodedSegment(start: start, end: start + Int64(words.count * 30), noSpeechProbability: 0, tokens: tokens)
    }

    private func words(_ text: String) -> [String] { text.split(separator: " ").map(String.init) }

    /// The bursts of audio of `length` cs: a 200 Hz tone where `sounds` says (cs ranges),
    /// digital silence elsewhere.
    private func audio(length: Int64, sounds: [Range<Int64>]) -> [Range<Int64>] {
        let perCs = MonoAudio.sampleRate / 100
        var samples = [Float](repeating: 0, count: Int(length) * perCs)
        for sound in sounds {
            for i in (Int(sound.lowerBound) * perCs)..<min(samples.count, Int(sound.upperBound) * perCs) {
                samples[i] = 0.3 * Float(sin(2 * Double.pi * 200 * Double(i) / Double(MonoAudio.sampleRate)))
            }
        }
        return LoudnessEnvelope(samples[...]).bursts()
    }

    private func text(_ segments: [DecodedSegment]) -> [String] {
        WordAssembler.words(in: segments, endOfText: Self.eot, timing: .tokens, origin: 0, audioEnd: 1000).map(\.text)
    }

    @Test func aPhraseRepeatedOverSilenceIsALoopCutToWhatWasHeard() {
        // Sound only under the first "and then he said" (0–120 cs) and "it" (360–390 cs).
        let looping = segment(words("and then he said and then he said and then he said it"))
        let heard = audio(length: 400, sounds: [10..<110, 362..<388])
        let loop = RepetitionGuard.firstLoop(in: [looping], endOfText: Self.eot, bursts: heard)
        #expect(loop == RepetitionGuard.Loop(segments: 0..<1, backedOccurrences: 1, phrase: ["and", "then", "he", "said"], repeats: 3))
        #expect(text(RepetitionGuard.collapsed([looping], endOfText: Self.eot, bursts: heard)) == ["and", "then", "he", "said", "it"])
    }

    /// What a re-decoding says of a loop's phrase, and the loop cut to as many copies as both agree on.
    @Test func repeatsHeardAgainAreCountedAndTrimmed() {
        let phrase = ["and", "then", "he", "said"]
        #expect(RepetitionGuard.timesInARow(phrase, in: [segment(words("and then he said it"))], endOfText: Self.eot) == 1)
        #expect(RepetitionGuard.timesInARow(phrase, in: [segment(words("so and then he said and then he said it"))], endOfText: Self.eot) == 2)
        #expect(RepetitionGuard.timesInARow(phrase, in: [segment(words("then he said it"))], endOfText: Self.eot) == 0)
        #expect(RepetitionGuard.timesInARow([], in: [segment(words("it it it"))], endOfText: Self.eot) == 0)
        let looping = [segment(words("so")), segment(words("word word word word word word and")), segment(words("done"), at: 400)]
        #expect(text(RepetitionGuard.trimmed(looping, repeating: ["word"], to: 4, endOfText: Self.eot))
            == ["so", "word", "word", "word", "word", "and", "done"])
        #expect(text(RepetitionGuard.trimmed(looping, repeating: ["word"], to: 6, endOfText: Self.eot)).count == 9)
        #expect(text(RepetitionGuard.trimmed(looping, repeating: ["other"], to: 1, endOfText: Self.eot)).count == 9)
    }

    @Test func aPhraseSaidThreeTimesWithItsOwnSoundEachTimeIsKept() {
        let repeated = segment(words("thank you thank you thank you"))
        let heard = audio(length: 200, sounds: [5..<50, 65..<110, 125..<170])
        #expect(RepetitionGuard.firstLoop(in: [repeated], endOfText: Self.eot, bursts: heard) == nil)
        // The same text over one stretch of sound: the copies have no sound of their own.
        let oneUtterance = audio(length: 200, sounds: [5..<50])
        #expect(RepetitionGuard.firstLoop(in: [repeated], endOfText: Self.eot, bursts: oneUtterance)?.backedOccurrences == 1)
    }

    /// A common word is one token (" word"), so five in a row are five of the same token: speech
    /// for the audio to judge, not a token loop cut to one whatever was heard.
    @Test func aOneTokenWordSaidFiveTimesWithItsOwnSoundEachTimeIsKept() {
        let repeated = segment(words("word word word word word"))
        let heard = audio(length: 160, sounds: [2..<22, 32..<52, 62..<82, 92..<112, 122..<142])
        #expect(RepetitionGuard.firstLoop(in: [repeated], endOfText: Self.eot, bursts: heard) == nil)
        #expect(text(RepetitionGuard.collapsed([repeated], endOfText: Self.eot, bursts: heard)) == Array(repeating: "word", count: 5))
        // Sound under the first two only: the other three are copies.
        let twice = audio(length: 160, sounds: [2..<22, 32..<52])
        #expect(RepetitionGuard.firstLoop(in: [repeated], endOfText: Self.eot, bursts: twice)?.backedOccurrences == 2)
        #expect(text(RepetitionGuard.collapsed([repeated], endOfText: Self.eot, bursts: twice)) == ["word", "word"])
    }

    @Test func copiesCompressedIntoNoTimeOrAtTheSameMomentAreALoop() {
        // "go forward" twice with its own sound, then twice more squeezed into 4 cs at the end.
        var repeated = segment(words("go forward go forward"))
        for (i, t) in [Int64(120), 121, 122, 123].enumerated() {
            repeated.tokens.append(WordAssemblyTests.token(repeated.tokens[i % 2].id, " " + ["go", "forward"][i % 2], t, t + 1))
        }
        let heard = audio(length: 130, sounds: [5..<55, 65..<115, 119..<125])
        let loop = RepetitionGuard.firstLoop(in: [repeated], endOfText: Self.eot, bursts: heard)
        #expect(loop?.backedOccurrences == 2)
        #expect(text(RepetitionGuard.collapsed([repeated], endOfText: Self.eot, bursts: heard)) == ["go", "forward", "go", "forward"])
        // Three copies at exactly the same moment, with sound enough for all three around them.
        let same = [segment(words("one more time")), segment(words("one more time")), segment(words("one more time"))]
        #expect(RepetitionGuard.firstLoop(in: same, endOfText: Self.eot, bursts: audio(length: 300, sounds: [0..<80, 100..<180, 200..<290]))?
            .backedOccurrences == 1)
    }

    @Test func ordinarySpeechAndShortRepeatsAreNotLoops() {
        let silence = audio(length: 600, sounds: [])
        let normal = segment(words("he was not an ill disposed young man"))
        #expect(RepetitionGuard.firstLoop(in: [normal], endOfText: Self.eot, bursts: silence) == nil)
        let emphatic = segment(words("no no no please said it twice said it twice"))
        #expect(RepetitionGuard.firstLoop(in: [emphatic, normal], endOfText: Self.eot, bursts: silence) == nil)
    }

    @Test func theSameSegmentOverAndOverIsALoopAcrossSegments() {
        let sentence = ["he", "might", "even", "have", "been", "made", "amiable"]
        let segments = [segment(["so", "it", "began"])] + (0..<3).map { segment(sentence, at: 90 + Int64($0) * 210) }
            + [segment(["the", "end"], at: 760)]
        // Sound under the opening, the first copy of the sentence and the end only.
        let heard = audio(length: 850, sounds: [0..<85, 95..<295, 762..<818])
        #expect(RepetitionGuard.firstLoop(in: segments, endOfText: Self.eot, bursts: heard)?.segments == 1..<4)
        let collapsed = RepetitionGuard.collapsed(Array(segments[1..<4]), endOfText: Self.eot, bursts: heard)
        #expect(collapsed.count == 1)
        #expect(text(collapsed) == sentence)
    }

    @Test func oneTokenLoopingIsALoop() {
        var tokens = [WordAssemblyTests.token(7, " ha", 0, 10)]
        for i in Int64(1)...9 {
            tokens.append(WordAssemblyTests.token(8, "ha", i * 10, i * 10 + 10))
        }
        let looping = DecodedSegment(start: 0, end: 100, noSpeechProbability: 0, tokens: tokens)
        let heard = audio(length: 130, sounds: [0..<100])
        #expect(RepetitionGuard.firstLoop(in: [segment(["fine"], at: 100), looping], endOfText: Self.eot, bursts: heard)
            == RepetitionGuard.Loop(segments: 1..<2, backedOccurrences: 0))
        #expect(text(RepetitionGuard.collapsed([looping], endOfText: Self.eot, bursts: heard)) == ["haha"])
    }
}
