import CapforgeCore
import Foundation

/// A Whisper model's tokens: the byte-level BPE text tokens, then the special ones
/// (`<|endoftext|>`, languages, tasks, `<|0.00|>`...), and the token rules they make.
struct RuntimeVocabulary {
    /// Raw bytes of each text token (below `endOfText`).
    let textTokens: [[UInt8]]
    let endOfText: Int32
    let startOfTranscript: Int32
    let translate: Int32
    let transcribe: Int32
    let noTimestamps: Int32
    /// <|nocaptions|>: its probability after the prompt is the window's no-speech probability.
    let noCaptions: Int32
    let firstTimestamp: Int32
    /// Language codes by token id ("en" for `<|en|>`).
    let languages: [Int32: String]
    let rules: WhisperTokenRules

    let size: Int

    /// The special ids as given; the rules follow from them.
    init(textTokens: [[UInt8]], size: Int, endOfText: Int32, startOfTranscript: Int32, translate: Int32, transcribe: Int32,
         startOfLM: Int32, previous: Int32, noCaptions: Int32, noTimestamps: Int32, firstTimestamp: Int32, languages: [Int32: String],
         path: String) throws {
        guard firstTimestamp + 1500 < size, textTokens.count <= Int(endOfText) else {
            throw ModelImportError.malformed(path: path, reason: "its special tokens do not fit its \(size)-token vocabulary")
        }
        self.textTokens = textTokens
        self.size = size
        self.endOfText = endOfText
        self.startOfTranscript = startOfTranscript
        self.translate = translate
        self.transcribe = transcribe
        self.noCaptions = noCaptions
        self.noTimestamps = noTimestamps
        self.firstTimestamp = firstTimestamp
        self.languages = languages
        // Every language token is suppressed, an English-only model's too (libwhisper's rule).
        let never = [startOfLM, previous, noCaptions, noTimestamps, startOfTranscript, translate, transcribe] + Array(startOfTranscript + 1 ..< translate)
        var idOf: [String: Int32] = [:]
        for (id, bytes) in textTokens.enumerated() { idOf[String(decoding: bytes, as: UTF8.self)] = Int32(id) }
        rules = WhisperTokenRules(
            vocabularySize: size, endOfText: endOfText, firstTimestamp: firstTimestamp, neverEmitted: never.sorted(),
            blankAtStart: [endOfText] + (idOf[" "].map { [$0] } ?? []), nonSpeech: WhisperTokenRules.nonSpeechTokens(idOf: idOf),
            maxInitialTimestamp: Int((Self.maxInitialSeconds / WhisperTokenRules.timestampStep).rounded()))
    }

    /// A CTranslate2 folder's `vocabulary.txt`, special tokens found by name.
    init(directory: URL, size: Int) throws {
        let url = directory.appendingPathComponent("vocabulary.txt")
        let data = try CT2WhisperConverter.regularFile(url) {
            try UserFile.read(url, what: "vocabulary", limit: CT2WhisperConverter.vocabularyByteLimit)
        }
        let textTokens = try ByteLevelVocabulary.tokens(fromVocabularyFile: data, path: url.path, atMost: size)
        let lines = data.split(separator: 0x0A, maxSplits: size, omittingEmptySubsequences: false).prefix(size)
        var special: [String: Int32] = [:]
        for (id, line) in lines.enumerated() where id >= textTokens.count {
            special[String(decoding: line, as: UTF8.self)] = Int32(id)
        }
        func id(_ name: String) throws -> Int32 {
            guard let id = special[name] else { throw ModelImportError.malformed(path: url.path, reason: "it has no \(name) token") }
            return id
        }
        let startOfTranscript = try id("<|startoftranscript|>"), translate = try id("<|translate|>")
        var languages: [Int32: String] = [:]
        for (name, id) in special where id > startOfTranscript && id < translate && name.hasPrefix("<|") && name.hasSuffix("|>") {
            languages[id] = String(name.dropFirst(2).dropLast(2))
        }
        try self.init(
            textTokens: textTokens, size: size, endOfText: try id("<|endoftext|>"), startOfTranscript: startOfTranscript, translate: translate,
            transcribe: try id("<|transcribe|>"), startOfLM: try id("<|startoflm|>"), previous: try id("<|startofprev|>"),
            noCaptions: try id("<|nocaptions|>"), noTimestamps: try id("<|notimestamps|>"), firstTimestamp: try id("<|0.00|>"),
            languages: languages, path: url.path)
    }

    /// A ggml model's text tokens (a converter may list special tokens after them); the
    /// special ids follow from the vocabulary's size as libwhisper computes them (a
    /// multilingual model's shift by its number of languages), and the languages are
    /// libwhisper's, in its order.
    init(ggmlTokens tokens: [[UInt8]], size: Int, path: String) throws {
        let multilingual = size > Self.englishOnlySize
        let languageCount = size - 51_765 - (multilingual ? 1 : 0)
        let shift = Int32(multilingual ? 1 : 0), languageShift = Int32(multilingual ? languageCount - 98 : 0)
        let startOfTranscript = 50_257 + shift
        let codes = multilingual ? Array(WhisperLanguages.all.prefix(languageCount)) : []
        try self.init(
            textTokens: Array(tokens.prefix(Int(50_256 + shift))), size: size, endOfText: 50_256 + shift, startOfTranscript: startOfTranscript,
            translate: 50_357 + languageShift, transcribe: 50_358 + languageShift, startOfLM: 50_359 + languageShift,
            previous: 50_360 + languageShift, noCaptions: 50_361 + languageShift, noTimestamps: 50_362 + languageShift,
            firstTimestamp: 50_363 + languageShift,
            languages: Dictionary(uniqueKeysWithValues: codes.enumerated().map { (startOfTranscript + 1 + Int32($0.offset), $0.element) }), path: path)
    }

    /// libwhisper's default `max_initial_ts`: a window's first timestamp is at most 1 s in.
    static let maxInitialSeconds: Float = 1.0

    /// English-only models list the language tokens too but were never trained on them; the
    /// vocabulary's size tells them apart (51,864 English-only, 51,865 on multilingual), as in
    /// libwhisper.
    var isMultilingual: Bool { size > Self.englishOnlySize }
    static let englishOnlySize = 51_864

    /// The tokens a window's decoding starts from: start of transcript, then for a
    /// multilingual model the language and the task.
    func prompt(language: String?, translating: Bool) throws -> [Int32] {
        guard isMultilingual else { return [startOfTranscript] }
        guard let language, let id = languages.first(where: { $0.value == language })?.key else {
            throw SpeechError.engineFailed(engine: WhisperEngine.engineName, reason: "the model has no token for language \(language ?? "none")")
        }
        return [startOfTranscript, id, translating ? translate : transcribe]
    }

    /// Language tokens in libwhisper's language-id order (the vocabulary's).
    var languageTokens: [Int32] { languages.keys.sorted() }

    func languageCode(ofID id: Int32) -> String? {
        let tokens = languageTokens
        return id >= 0 && Int(id) < tokens.count ? languages[tokens[Int(id)]] : nil
    }

    func bytes(of token: Int32) -> [UInt8] {
        Int(token) < textTokens.count && token >= 0 ? textTokens[Int(token)] : []
    }

    /// How libwhisper spells a token, special ones included ("[_TT_150]" for <|3.00|>): its
    /// token timing weighs each token by these letters.
    func libwhisperSpelling(of token: Int32) -> [UInt8] {
        if token > firstTimestamp { return Array("[_TT_\(token - firstTimestamp)]".utf8) }
        if token == firstTimestamp { return Array("[_BEG_]".utf8) }
        if token == endOfText { return Array("[_EOT_]".utf8) }
        return bytes(of: token)
    }
}
