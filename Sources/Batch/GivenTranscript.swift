import CapforgeCore
import Captions
import Foundation

/// Where the words of the captions come from when the user has them: one transcript named for
/// one input, or `NAME.txt` beside each input.
public enum TranscriptChoice: Codable, Sendable, Equatable {
    case file(String)
    case beside
}

extension TranscriptChoice {
    /// `--transcript FILE`, its first words read now: a missing or unreadable one stops the run
    /// before it starts (its length is judged against the recording's once it is probed).
    public static func file(checking path: String) throws -> TranscriptChoice {
        let data = try UserFile.read(URL(fileURLWithPath: path), what: "transcript", limit: WrittenTranscript.maxBytes)
        _ = try WrittenTranscript.read(data, path: path, wordLimit: GivenTranscript.mostWordsAlways)
        return .file(URL(fileURLWithPath: path).standardizedFileURL.path)
    }
}

/// An input's transcript, read, and its digest (the manifest redoes the file when it changes).
struct GivenTranscript {
    let url: URL
    let text: WrittenTranscript
    let digest: String

    /// Fewer of the transcript's words than this matched means it is not this recording's
    /// (or not in the language heard): failing says so better than captions of guesses.
    static let leastMatchedShare = 0.05
    /// Words a second past which no recording holds a transcript (twice the fastest speech):
    /// one with more is refused after reading that many, however large it is.
    static let mostWordsPerSecond = 10.0
    /// A recording of any length may have a transcript of this many words.
    static let mostWordsAlways = 100

    /// The most words a transcript of a recording `seconds` long may hold; any number when its
    /// length is not known.
    static func wordLimit(seconds: Double?) -> Int {
        guard let seconds, seconds.isFinite, seconds > 0, seconds < 1e9 else { return .max }
        return max(mostWordsAlways, Int(seconds * mostWordsPerSecond))
    }

    /// The file `choice` names for `input`.
    static func location(_ choice: TranscriptChoice, for input: BatchInput) -> URL {
        switch choice {
        case .file(let path): return URL(fileURLWithPath: path)
        case .beside: return input.url.deletingPathExtension().appendingPathExtension("txt")
        }
    }

    /// nil when `--transcript-beside` finds none beside the input (it is then recognised).
    /// `seconds`: the recording's length; a transcript with more words than it can hold is
    /// refused once that many are read.
    static func read(_ choice: TranscriptChoice, for input: BatchInput, seconds: Double?) throws -> GivenTranscript? {
        guard let data = try bytes(choice, for: input) else { return nil }
        let url = location(choice, for: input)
        let limit = wordLimit(seconds: seconds)
        let text = try WrittenTranscript.read(data, path: url.path, wordLimit: limit)
        if !text.isWhole, let seconds { throw GivenTranscriptError.tooManyWords(path: url.path, limit: limit, seconds: seconds) }
        return GivenTranscript(url: url, text: text, digest: SHA256.hex(of: data))
    }

    /// The digest of the transcript's bytes, which the manifest keys a file's outputs by; nil
    /// when `--transcript-beside` finds none.
    static func digest(_ choice: TranscriptChoice, for input: BatchInput) throws -> String? {
        try bytes(choice, for: input).map(SHA256.hex(of:))
    }

    private static func bytes(_ choice: TranscriptChoice, for input: BatchInput) throws -> Data? {
        let url = location(choice, for: input)
        var info = stat()
        if choice == .beside, lstat(url.path, &info) != 0, errno == ENOENT { return nil }
        return try UserFile.read(url, what: "transcript", limit: WrittenTranscript.maxBytes)
    }

    /// The transcript's words timed from what was heard; throws when almost none of its spoken
    /// words (descriptions aside) were heard: for a short transcript, when the recogniser heard
    /// enough words to tell (a transcript of descriptions only is judged by nothing: what was
    /// heard is named as not in it).
    func align(to heard: Transcript, speech: [TimeSpan]) throws -> Transcript {
        let aligned = TranscriptAligner.align(text, source: url.lastPathComponent, to: heard, speech: speech)
        let alignment = aligned.alignment!
        let judged = spokenWords >= 20 || heard.words.count >= TranscriptAligner.differentTextWords
        if judged, Double(alignment.matched) < Self.leastMatchedShare * Double(spokenWords) {
            throw GivenTranscriptError.doesNotMatch(path: url.path, matched: alignment.matched, words: alignment.words, language: heard.language)
        }
        return aligned
    }

    /// The transcript's words but its descriptions of sounds and speakers.
    var spokenWords: Int { text.words.filter { !$0.isDescription }.count }
}

enum GivenTranscriptError: Error, CustomStringConvertible {
    case doesNotMatch(path: String, matched: Int, words: Int, language: Language)
    case tooManyWords(path: String, limit: Int, seconds: Double)

    var description: String {
        switch self {
        case .doesNotMatch(let path, let matched, let words, let language):
            return "transcript \(path) does not match the speech: \(matched) of its \(words) words were heard; "
                + "is it this recording's, and in \(language.name) (--lang names the spoken language)?"
        case .tooManyWords(let path, let limit, let seconds):
            return "transcript \(path) has more than \(limit) words, more than the recording's \(ClockTime.seconds(seconds)) can hold "
                + "(\(Int(GivenTranscript.mostWordsPerSecond)) words a second, twice the fastest speech): is it this recording's? "
                + "Give the part that is said in it"
        }
    }
}

extension TranscriptAlignment {
    /// The most passages named one by one in the warnings (the JSON lists all).
    static let namedPassages = 20

    /// What the captions leave out or could only estimate, for the terminal, summary and report.
    /// `spokenWords`: the transcript's words but its descriptions, which are never heard.
    func warnings(tier: TranscriptTier, spokenWords: Int) -> [String] {
        var lines: [String] = []
        let share = spokenWords > 0 ? Double(matched) / Double(spokenWords) : 1
        if share < 0.5 {
            let who = tier == .modern ? "the recogniser" : "the basic tier (its words are often unlike what was said)"
            lines.append("only \(Int((share * 100).rounded())) % of the transcript's words matched what \(who) heard; "
                + "the others (\(timedBetween)) were timed by their share of the speech between matches, so their times are estimates")
        }
        for passage in notHeard.prefix(Self.namedPassages) {
            lines.append("transcript line \(passage.line ?? 0): \(Self.excerpt(passage)) was not heard (too little speech between "
                + "\(ClockTime.tenths(passage.start)) and \(ClockTime.tenths(passage.end)) for it): left out of the captions")
        }
        if notHeard.count > Self.namedPassages {
            lines.append("\(notHeard.count - Self.namedPassages) more passages of the transcript were not heard (\(notHeardWords) words in all; the JSON lists them)")
        }
        for passage in estimated.prefix(Self.namedPassages) {
            lines.append("transcript line \(passage.line ?? 0): \(Self.excerpt(passage)) was not heard and has little speech where it belongs "
                + "(\(ClockTime.tenths(passage.start))–\(ClockTime.tenths(passage.end))): kept, its times estimated")
        }
        if estimated.count > Self.namedPassages {
            lines.append("\(estimated.count - Self.namedPassages) more short passages were kept with estimated times (the JSON lists them)")
        }
        for passage in notInTranscript.prefix(Self.namedPassages) {
            lines.append("heard at \(ClockTime.tenths(passage.start))–\(ClockTime.tenths(passage.end)) but not in the transcript: "
                + "\(Self.excerpt(passage)): not captioned")
        }
        if notInTranscript.count > Self.namedPassages {
            lines.append("\(notInTranscript.count - Self.namedPassages) more stretches were heard that the transcript does not have (the JSON lists them)")
        }
        return lines
    }

    /// The review page's timeline marks of the passages.
    var marks: [TimelineMark] {
        notHeard.map { TimelineMark(start: $0.start, end: $0.end, kind: .notHeard, text: "not heard: transcript line \($0.line ?? 0), \(Self.excerpt($0))") }
            + estimated.map { TimelineMark(start: $0.start, end: $0.end, kind: .notHeard, text: "kept, time estimated: transcript line \($0.line ?? 0), \(Self.excerpt($0))") }
            + notInTranscript.map { TimelineMark(start: $0.start, end: $0.end, kind: .notInTranscript, text: "not in the transcript: \(Self.excerpt($0))") }
    }

    /// "“It was the best of times, it was …” (37 words)".
    static func excerpt(_ passage: Passage) -> String {
        let limit = 60
        let text = passage.text.count > limit ? String(passage.text.prefix(limit)) + "…" : passage.text
        return "\u{201C}\(text)\u{201D}" + (passage.words > 1 ? " (\(passage.words) words)" : "")
    }
}
