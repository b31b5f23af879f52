import CapforgeCore

/// Something a transcription did or assumed that the request did not ask for, said to the user
/// wherever they look (terminal, summary, report); `description` is the sentence.
public enum TranscriptionNote: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Why `--translate` made no translation of a file whose language is English.
    public enum NothingToTranslate: Sendable, Equatable, Codable {
        case noSpeech
        /// English was assumed, not heard.
        case languageUnknown
        /// English, as the source says.
        case english(source: LanguageSource)
    }

    /// The spoken language could not be told, so English was assumed; `detectorInstalled`:
    /// a model that detects languages was there and unsure.
    case languageAssumed(detectorInstalled: Bool)
    case nothingToTranslate(why: NothingToTranslate)
    /// No installed model translates `language`; only the spoken language's captions are made.
    case cannotTranslate(language: Language, recognisedByBasicTier: Bool)
    /// Of a file's two passes, said of its English translation.
    indirect case ofTranslation(note: TranscriptionNote)

    // What a pass did (`notes(of:plan:engines:calibration:)`).
    /// Chunks the plan gave the modern tier that the basic tier heard; `reason`: the first one's.
    case fellBack(chunks: Int, of: Int, reason: String, first: TimeSpan)
    /// Words dropped for `reason`: how many, from the first's start to the last's end, the first 12.
    case dropped(reason: DropReason, count: Int, span: TimeSpan, excerpt: [String])
    /// The recogniser's loops cut to what the audio backs: how many, and the first.
    case loopsCut(count: Int, first: LoopCut)
    /// Words kept where the speech detector found no speech, marked low-confidence.
    case wordsOverNoSpeech(count: Int)
    /// Seams between disagreeing windows that could not be heard again: how many, the first's error.
    case seamsNotReheard(count: Int, first: String)
    /// Windows beam search did not decode.
    case beamFellBack(tally: BeamTally)
    /// Doubted stretches arbitration gave the basic tier: how many, of how many, and their words.
    case arbitratedToBasic(stretches: Int, of: Int, words: Int)
    /// Doubted stretches the basic tier failed on (the modern words stand), and the first error.
    case basicFailedArbitration(stretches: Int, error: String)
    /// Translated words' confidence, which no map was measured for.
    case translationUncalibrated
    /// An engine (its calibration key) with no map measured on held-out speech here.
    case uncalibrated(engine: String)
    /// An engine's map measured on other languages (their names) than `language`.
    case calibratedOnOtherLanguages(engine: String, measuredOn: [String], language: Language)
    /// `--cross-check` did nothing for the file: why, and the checking model.
    case notCrossChecked(why: NotCrossChecked, checker: String, language: Language)
    /// The cross-check pair (its key) has no measured rates; `pooled`: other pairs' rates weigh its disputes.
    case crossCheckUnmeasured(pair: String, pooled: Bool)
    /// The cross-check model failed on chunks, the first one's span and error.
    case crossCheckFailed(checker: String, chunks: Int, first: TimeSpan, error: String)
    /// Chunks no tier recognised, their speech missing from the captions.
    case chunksFailed(spans: [TimeSpan])
    /// Music alone the recognisers did not hear (the music check found no voice in it).
    case musicNotHeard(stretches: [TimeSpan])

    public enum NotCrossChecked: String, Sendable, Equatable, Codable {
        /// The basic tier transcribed it; the checker checks only Whisper's words.
        case basicTier
        /// The checker is the only model for the language and transcribed the file itself.
        case onlyModel
        /// The checker does not cover the language.
        case languageNotCovered
    }

    public var description: String {
        switch self {
        case .languageAssumed(let detectorInstalled):
            let why = detectorInstalled ? "detection found no supported language it was sure of" : "no multilingual Whisper model is installed to detect it"
            return "the spoken language was not verified: English assumed (\(why)); pass --lang CODE if it is not English"
        case .nothingToTranslate(why: .noSpeech):
            return "no speech was found, so --translate had nothing to translate"
        case .nothingToTranslate(why: .languageUnknown):
            return "--translate translated nothing: the spoken language could not be told, so English was assumed; pass --lang CODE to translate it"
        case .nothingToTranslate(why: .english(let source)):
            // Said as known, not as fact: noise Whisper calls English is not English speech.
            let known = source == .detected ? "Whisper heard English" : source == .streamTag ? "the audio is tagged English" : "--lang en was given"
            return "\(known), so --translate has nothing to translate: the captions are what was said"
        case .cannotTranslate(let language, let basic):
            return Self.untranslatable(language, recognisedByBasicTier: basic) + "; only the \(language.name) captions were written"
        case .ofTranslation(let note):
            return Self.translationPrefix + note.description
        case .fellBack(let chunks, let total, let reason, _):
            return "\(chunks) of \(total) chunk(s) fell back to the basic tier (flagged as such): \(reason)"
        case .dropped(let reason, let count, let span, let excerpt):
            return "dropped \(count) word(s) \(reason.explanation), \(ClockTime.seconds(span.start))–\(ClockTime.seconds(span.end)): “\(Self.excerpt(excerpt, of: count))”"
        case .loopsCut(let count, let first):
            // The counts tell a long loop from what was kept when both excerpts read the same.
            let words = { (text: String) in
                let words = text.split(separator: " ").map(String.init)
                return "“\(Self.excerpt(words, of: words.count))” (\(words.count) words)"
            }
            return "the recogniser looped \(count) time(s) and copies the audio did not back were cut, "
                + "first at \(ClockTime.seconds(first.start)): wrote \(words(first.heard)), kept \(words(first.kept)); the JSON lists each (loopCuts)"
        case .wordsOverNoSpeech(let count):
            return "\(count) word(s) lie where the speech detector found no speech; kept and marked low-confidence"
        case .seamsNotReheard(let count, let first):
            return "\(count) seam(s) between windows that disagreed could not be heard again, so the overlap's "
                + "middle joined them and a word there may be lost or doubled: \(first)"
        case .beamFellBack(let beam):
            let windows = beam.beamWindows + beam.unsureWindows + beam.failedWindows
            var parts: [String] = []
            if beam.unsureWindows > 0 { parts.append("\(beam.unsureWindows) too unsure for it (greedy decoding with temperature fallback instead)") }
            if beam.failedWindows > 0 { parts.append("\(beam.failedWindows) where it could not run (greedy decoding instead)") }
            return "beam search decoded \(beam.beamWindows) of \(windows) 30 s window(s): " + parts.joined(separator: ", ")
        case .arbitratedToBasic(let stretches, let total, let words):
            return "arbitration gave \(stretches) of \(total) doubted stretch(es) to the basic tier "
                + "(\(words) word(s), flagged as basic quality); -v or the JSON shows each verdict"
        case .basicFailedArbitration(let stretches, let error):
            return "the basic tier failed on \(stretches) doubted stretch(es); the modern words stand: \(error)"
        case .translationUncalibrated:
            return "the confidence of translated words is not calibrated (the measured maps are for transcription): "
                + "their low-confidence marks are unmeasured"
        case .uncalibrated(let engine):
            return "the confidence of \(engine) is not calibrated on held-out speech here: its raw confidence is used, so its "
                + "low-confidence marks are unmeasured"
        case .calibratedOnOtherLanguages(let engine, let measuredOn, let language):
            return "the confidence of \(engine) was calibrated on \(measuredOn.joined(separator: ", ")) speech only: for '\(language)' its "
                + "low-confidence marks are unmeasured"
        case .notCrossChecked(why: .basicTier, let checker, _):
            return "not cross-checked: the basic tier transcribed it, and the cross-check model \(checker) checks only Whisper's words"
        case .notCrossChecked(why: .onlyModel, let checker, let language):
            return "not cross-checked: the cross-check model \(checker) is the only one that covers '\(language)', and it transcribed the file itself"
        case .notCrossChecked(why: .languageNotCovered, let checker, let language):
            return "not cross-checked: the cross-check model \(checker) does not cover '\(language)'"
        case .crossCheckUnmeasured(let pair, let pooled):
            return pooled
                ? "\(pair) is not measured: the pooled rates of the measured pairs weigh its disputes"
                : "\(pair) is not measured: disputed words are listed in the JSON but keep their confidence"
        case .crossCheckFailed(let checker, let chunks, let first, let error):
            return "the cross-check model \(checker) failed on \(chunks) chunk(s), whose words keep the confidence of one model: "
                + String(format: "%.1f–%.1f s: ", first.start, first.end) + error
        case .musicNotHeard(let stretches):
            let seconds = stretches.reduce(0) { $0 + $1.end - $1.start }
            let listed = stretches.prefix(3).map { "\(ClockTime.tenths($0.start))–\(ClockTime.tenths($0.end))" }.joined(separator: ", ")
            return "music without a voice was not transcribed: \(stretches.count) stretch(es), \(String(format: "%.1f", seconds)) s (\(listed)"
                + (stretches.count > 3 ? ", …" : "") + "); the JSON lists each (sounds.musicAlone)"
        case .chunksFailed(let spans):
            return "\(spans.count) chunk(s) could not be recognised by any tier: "
                + spans.map { String(format: "%.1f–%.1f s", $0.start, $0.end) }.joined(separator: ", ")
                + "; their speech is missing from the captions, and a rerun retries the file"
        }
    }

    /// How a line about the English translation of a file with two passes begins.
    public static let translationPrefix = "English translation: "

    /// The first twelve of `count` words, and an ellipsis when there are more.
    private static func excerpt(_ words: [String], of count: Int) -> String {
        words.prefix(12).joined(separator: " ") + (count > 12 ? " …" : "")
    }

    /// Why `language` cannot be translated: the note's start, and the error when nothing else was asked for.
    static func untranslatable(_ language: Language, recognisedByBasicTier basic: Bool) -> String {
        "cannot translate \(language.name) to English: only a multilingual Whisper model can, and none installed here covers it"
            + (basic ? " (the basic tier, which recognises it, cannot translate)" : "")
            + "; install one with 'capforge models install base'"
    }
}
