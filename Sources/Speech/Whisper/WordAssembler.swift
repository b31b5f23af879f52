import CapforgeCore
import Foundation

/// Turns whisper's tokens into words on the file's timeline.
enum WordAssembler {
    enum Timing: Sendable {
        /// Token heuristic t0/t1: tight, but a word after a pause starts early.
        case tokens
        /// start = max(token t0, previous word's DTW time), end = token t1: the DTW time marks
        /// when the previous word was emitted, so the pause before this word is cut off.
        case hybridDTW
    }

    /// Tokens of one word: a token whose bytes begin with a space starts a new word. Special
    /// and timestamp tokens (ids >= `endOfText`) are skipped.
    static func group(_ tokens: [DecodedToken], endOfText: Int32) -> [[DecodedToken]] {
        var groups: [[DecodedToken]] = []
        for token in tokens where token.id < endOfText && !token.bytes.isEmpty {
            if token.bytes.first == UInt8(ascii: " ") || groups.isEmpty || startsUnspacedWord(token, after: groups[groups.count - 1]) {
                groups.append([token])
            } else {
                groups[groups.count - 1].append(token)
            }
        }
        return groups
    }

    /// Chinese and Japanese have no spaces to group by: each token that begins a whole
    /// character of such a script (after a group that ends on a whole character) is a word of
    /// its own, timed by its own token, and the captions find the real word boundaries.
    private static func startsUnspacedWord(_ token: DecodedToken, after group: [DecodedToken]) -> Bool {
        // A UTF-8 continuation byte first: the token finishes a character the group began.
        guard let first = token.bytes.first, first & 0xC0 != 0x80,
              let previous = String(validating: group.flatMap(\.bytes), as: UTF8.self)?.last else { return false }
        // The token's first character alone: the token may end part-way into the next one.
        let length = first < 0x80 ? 1 : first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : 2
        let next = String(validating: token.bytes.prefix(length), as: UTF8.self)?.first
        return next.map(UnspacedScript.contains) == true || UnspacedScript.contains(previous)
    }

    /// Decoded per word, never per token: a token can hold part of a UTF-8 sequence.
    static func text(of group: [DecodedToken]) -> String {
        String(decoding: group.flatMap(\.bytes), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Words of `segments` (times in centiseconds from `origin` seconds), kept inside their
    /// segment and `[origin, audioEnd]`, with starts and ends that never go backwards. Every
    /// word holds a letter or digit.
    static func words(
        in segments: [DecodedSegment], endOfText: Int32, timing: Timing, origin: Double, audioEnd: Double
    ) -> [Word] {
        var words: [Word] = []
        var previousEmission: Int64 = -1
        for segment in segments {
            let low = origin + seconds(segment.start)
            let high = max(low, min(audioEnd, origin + seconds(segment.end)))
            let groups = group(segment.tokens, endOfText: endOfText)
            let segmentLogProbability = meanLogProbability(groups.joined())
            for group in groups {
                defer { previousEmission = group.last!.dtwTime }
                let text = text(of: group)
                guard !text.isEmpty else { continue }
                guard text.contains(where: { $0.isLetter || $0.isNumber }) else {
                    // Music notes and other bare symbols are not speech. Bare punctuation
                    // (" ...", " -") belongs to the word before it, as punctuation tokens
                    // without a leading space already do.
                    if text.allSatisfy(\.isPunctuation), !words.isEmpty { words[words.count - 1].text += text }
                    continue
                }
                let rawStart = timing == .hybridDTW ? max(group.first!.start, previousEmission) : group.first!.start
                let floor = max(low, words.last?.start ?? low)
                let start = min(high, max(floor, origin + seconds(rawStart)))
                let end = min(high, max(start, words.last?.end ?? start, origin + seconds(group.last!.end)))
                let confidence = group.map { Double($0.probability) }.reduce(0, +) / Double(group.count)
                let evidence = WordEvidence(
                    minimumTokenProbability: Double(group.map(\.probability).min()!), tokenCount: group.count,
                    segmentLogProbability: segmentLogProbability, sampled: segment.sampled ? true : nil)
                words.append(Word(
                    text: text, start: start, end: end, confidence: confidence, tier: .modern, engine: WhisperEngine.engineName,
                    evidence: evidence))
            }
        }
        return words
    }

    private static func meanLogProbability<Tokens: Collection<DecodedToken>>(_ tokens: Tokens) -> Double {
        guard !tokens.isEmpty else { return 0 }
        // A probability of exactly 0 would make the mean -inf; whisper never samples one, but clamp.
        return tokens.map { log(max(Double($0.probability), 1e-10)) }.reduce(0, +) / Double(tokens.count)
    }

    private static func seconds(_ centiseconds: Int64) -> Double { Double(centiseconds) / 100 }
}
