import CapforgeCore
import Foundation
import WhisperRuntime

/// The modern tier: Whisper through libwhisper or Capforge's own runtime, one loaded model per engine.
/// libwhisper's context takes one call at a time (`WhisperContext` holds the lock); the runtime
/// keeps each decoding's state to the call, so its windows are heard side by side.
public final class WhisperEngine: SpeechEngine, Sendable {
    public static let engineName = "whisper"
    public let identity: EngineIdentity
    public let supportedLanguages: Set<Language>
    public let options: WhisperOptions
    public var isMultilingual: Bool { backend.isMultilingual }
    /// A multilingual model's: English-only models can neither tell languages apart nor translate.
    public static let multilingualCapabilities: EngineCapabilities = [.detectsLanguage, .translates]
    public var capabilities: EngineCapabilities { isMultilingual ? Self.multilingualCapabilities : [] }

    let backend: any WhisperBackend
    private var endOfText: Int32 { backend.endOfText }

    private init(backend: any WhisperBackend, vocabularySize: Int, options: WhisperOptions, identity: EngineIdentity) {
        self.backend = backend
        supportedLanguages = backend.isMultilingual ? Set(WhisperLanguages.supported(byVocabularySize: vocabularySize)) : [.english]
        self.options = options
        self.identity = identity
    }

    /// Loads the ggml model at `modelPath` after checking the library matches our header and
    /// the model is whole (libwhisper aborts the process on a model whose header lies).
    public convenience init(modelPath: String, options: WhisperOptions = WhisperOptions(), modelSHA256: String? = nil) throws {
        try WhisperLibrary.verifyABI()
        guard let hparams = try WhisperModelFile.validated(at: URL(fileURLWithPath: modelPath)) else {
            throw SpeechError.modelInvalid(path: modelPath, reason: "it is not a ggml Whisper model")
        }
        let attention: WhisperContext.Attention
        if options.preciseTiming {
            attention = .dtwAlignment(AlignmentHeads.preset(for: hparams))
        } else {
            attention = .flash
        }
        self.init(
            backend: try WhisperContext(modelPath: modelPath, attention: attention, options: options), vocabularySize: hparams.vocabularySize,
            options: options,
            identity: EngineIdentity(
                engine: Self.engineName, tier: .modern, model: ModelStore.modelName(ofFile: URL(fileURLWithPath: modelPath).lastPathComponent),
                modelSHA256: modelSHA256))
    }

    /// Whisper on Capforge's own runtime, from an installed ggml model file or a CTranslate2
    /// folder (`WeightPrecision.preferred`: int8 where the CPU has VNNI, float32 elsewhere).
    /// Greedy decoding with libwhisper's temperature fallback and token timing; not yet with a
    /// beam, a text prompt or DTW timing.
    public convenience init(runtimeModel url: URL, options: WhisperOptions = WhisperOptions(), precision: WeightPrecision = .preferred,
                            modelSHA256: String? = nil) throws {
        guard options.onlyOnLibwhisper.isEmpty else {
            throw SpeechError.engineFailed(engine: Self.engineName,
                                           reason: "Capforge's own Whisper runtime does not yet do \(options.onlyOnLibwhisper.joined(separator: ", ")); libwhisper does")
        }
        let model = try RuntimeWhisperModel(contentsOf: url, precision: precision)
        self.init(
            backend: RuntimeBackend(model: model, threads: options.threads), vocabularySize: model.network.dimensions.vocabularySize,
            options: options,
            identity: EngineIdentity(engine: Self.engineName, tier: .modern, model: ModelStore.modelName(ofFile: url.lastPathComponent),
                                     modelSHA256: modelSHA256, runtime: WhisperNetworkChoice.capforge.rawValue))
    }

    public var windowsAtOnce: Int { backend.windowsAtOnce }

    public func shareCores(among windows: Int) { backend.shareCores(among: windows) }

    public func transcribe(_ audio: MonoAudio, language: Language, cancellation: Cancellation) throws -> [Word] {
        try transcribeDetailed(audio, language: language, cancellation: cancellation).words
    }

    public func transcribeWindow(_ audio: MonoAudio, language: Language, nextWindowFrom: Double?, cancellation: Cancellation) throws -> HeardWindow {
        try transcribeDetailed(audio, language: language, nextWindowFrom: nextWindowFrom, cancellation: cancellation).window
    }

    public func translate(_ audio: MonoAudio, from language: Language, cancellation: Cancellation) throws -> HeardWindow {
        try transcribeDetailed(audio, language: language, task: .translate, cancellation: cancellation).window
    }

    /// `language` nil lets a multilingual model pick (an English-only one hears English).
    /// `task` `.translate` writes what a multilingual model hears in `language` as English.
    /// `nextWindowFrom`: the audio from there on is heard by a next window, so where Whisper
    /// would start another 30 s encoder pass there or later, it stops (`heardUntil`).
    public func transcribeDetailed(_ audio: MonoAudio, language: Language?, task: WhisperTask = .transcribe, nextWindowFrom: Double? = nil,
                                   cancellation: Cancellation) throws -> WhisperTranscription {
        if task == .translate, !isMultilingual {
            throw SpeechError.engineFailed(engine: Self.engineName, reason: "\(identity.model) is an English-only model and cannot translate")
        }
        let requested = language ?? (isMultilingual ? nil : .english)
        if let requested, !supportedLanguages.contains(requested) {
            throw SpeechError.unsupportedLanguage(language: requested, engine: Self.engineName, available: supportedLanguages.sorted())
        }
        let began = Date()
        guard !audio.samples.isEmpty else {
            return WhisperTranscription(words: [], segments: [], language: requested ?? .english, seconds: 0, redecodedSegments: 0,
                                        loopCuts: [], droppedWords: [], heardUntil: audio.endTime, beam: nil)
        }
        return try transcribeDetailed(audio, requested: requested, task: task, nextWindowFrom: nextWindowFrom, cancellation: cancellation, began: began)
    }

    private func transcribeDetailed(_ audio: MonoAudio, requested: Language?, task: WhisperTask, nextWindowFrom: Double?,
                                    cancellation: Cancellation, began: Date) throws -> WhisperTranscription {
        let plain = try hear(audio, language: requested, task: task, nextWindowFrom: nextWindowFrom, prompt: nil, cancellation: cancellation)
        var words = plain.words
        var redecoded = plain.redecoded
        if let prompt = options.initialPrompt, !words.isEmpty {
            let prompted = try hear(audio, language: plain.language, task: task, nextWindowFrom: nextWindowFrom, prompt: prompt,
                                    cancellation: cancellation)
            words = PromptedSpelling.respelled(words, by: prompted.words, prompt: prompt, language: plain.language)
            redecoded += prompted.redecoded
        }
        return WhisperTranscription(
            words: words,
            segments: plain.segments.map { segment in
                WhisperTranscription.Segment(
                    start: audio.startTime + Double(segment.start) / 100,
                    end: min(audio.endTime, audio.startTime + Double(segment.end) / 100),
                    text: text(of: [segment]), noSpeechProbability: Double(segment.noSpeechProbability))
            },
            language: plain.language, seconds: Date().timeIntervalSince(began), redecodedSegments: redecoded, loopCuts: plain.loopCuts,
            droppedWords: plain.overSteadySound, heardUntil: plain.heardUntil, beam: plain.beam)
    }

    private func text(of segments: some Collection<DecodedSegment>) -> String {
        segments.flatMap { WordAssembler.group($0.tokens, endOfText: endOfText).map(WordAssembler.text) }.joined(separator: " ")
    }

    /// One decoding of `audio`, loops repaired and segments over steady sound dropped.
    private struct Hearing {
        var segments: [DecodedSegment]
        var words: [Word]
        /// The words of the segments dropped over steady sound.
        var overSteadySound: [Word]
        var language: Language
        var redecoded: Int
        var loopCuts: [LoopCut]
        var heardUntil: Double
        var beam: BeamTally?
    }

    private func hear(
        _ audio: MonoAudio, language requested: Language?, task: WhisperTask, nextWindowFrom: Double?, prompt: String?,
        cancellation: Cancellation
    ) throws -> Hearing {
        let decoded = try backend.decode(audio.samples, language: requested, task: task, prompt: prompt, redecoding: false,
                                         passesBefore: nextWindowFrom.map { Int64((max(0, $0 - audio.startTime) * 100).rounded()) },
                                         cancellation: cancellation)
        var segments = decoded.segments
        var heardUntil = audio.endTime
        if decoded.stoppedEarly {
            // Text after Whisper's last timestamp comes as a zero-length last segment: a sentence
            // the window cut, which the next window hears whole from where this one stops (the
            // end of its last finished segment, Whisper's own seek; the window's end if none).
            if segments.count > 1, let last = segments.last, last.end <= last.start { segments.removeLast() }
            let finished = segments.last.map { Double($0.end) / 100 } ?? 0
            heardUntil = min(audio.endTime, audio.startTime + (finished > 0 ? finished : Double(WhisperEngine.windowFrames) / 100))
        }
        let decodedIn = requested ?? decoded.language ?? .english
        var redecoded = 0
        let bursts = LoudnessEnvelope(audio.samples[...]).bursts()
        // A run of repeats is decoded again on its own, with no text before it to copy. Heard
        // repeating again, it is a speaker repeating themselves, kept as often as both decodings
        // agree (the audio's bursts cannot tell: "word, word, word" said without pauses is one
        // burst, and Whisper times repeats loosely); a loop over music or tones repeats again too,
        // and the hallucination guard drops it against the speech detector. Repeats not heard
        // again are cut to the occurrences the audio backs, and a loop that hides what was said
        // (one occurrence or none backed) takes the re-decoding's words instead. A re-decode may
        // loop again or form a new loop with its neighbours, so the passes are bounded, and
        // whatever still loops after them is cut to what the audio backs. Segments before
        // `settled` hold only repeats heard twice.
        var settled = 0
        var loopCuts: [LoopCut] = []
        func replace(_ range: Range<Int>, with repaired: [DecodedSegment]) {
            let heard = text(of: segments[range]), kept = text(of: repaired)
            if heard != kept {
                loopCuts.append(LoopCut(start: audio.startTime + Double(segments[range].first!.start) / 100,
                                        end: audio.startTime + Double(segments[range].last!.end) / 100, heard: heard, kept: kept))
            }
            segments.replaceSubrange(range, with: repaired)
        }
        func firstLoop() -> RepetitionGuard.Loop? {
            RepetitionGuard.firstLoop(in: Array(segments[settled...]), endOfText: endOfText, bursts: bursts).map { $0.shifted(by: settled) }
        }
        while redecoded <= segments.count, let loop = firstLoop() {
            let span = Array(segments[loop.segments])
            redecoded += 1
            let again = try redecode(span, of: audio.samples, language: decodedIn, task: task, cancellation: cancellation)
            let heardAgain = RepetitionGuard.timesInARow(loop.phrase, in: again, endOfText: endOfText)
            if heardAgain >= 2 {
                let speech = RepetitionGuard.trimmed(span, repeating: loop.phrase, to: max(loop.backedOccurrences, min(loop.repeats, heardAgain)),
                                                     endOfText: endOfText)
                replace(loop.segments, with: speech)
                settled = loop.segments.lowerBound + speech.count
                continue
            }
            replace(loop.segments, with: RepetitionGuard.collapsed(loop.backedOccurrences >= 2 ? span : again, endOfText: endOfText, bursts: bursts))
        }
        if firstLoop() != nil {
            replace(settled..<segments.count, with: RepetitionGuard.collapsed(Array(segments[settled...]), endOfText: endOfText, bursts: bursts))
        }
        let kept = segments.map { NoSpeechFilter.keeps($0, samples: audio.samples) }
        let steady = segments.indices.filter { !kept[$0] }.map { segments[$0] }
        segments = segments.indices.filter { kept[$0] }.map { segments[$0] }

        func words(_ segments: [DecodedSegment]) -> [Word] {
            WordAssembler.words(in: segments, endOfText: endOfText, timing: options.preciseTiming ? .hybridDTW : .tokens,
                                origin: audio.startTime, audioEnd: audio.endTime)
        }
        return Hearing(segments: segments, words: LeadingSilence.words(words(segments), in: audio), overSteadySound: words(steady), language: decodedIn, redecoded: redecoded,
                       loopCuts: loopCuts, heardUntil: heardUntil, beam: decoded.beam)
    }

    /// The most likely spoken language of the first 30 s of `audio`; nil for an English-only
    /// model, which cannot tell languages apart.
    public func detectLanguage(_ audio: MonoAudio) throws -> LanguageGuess? {
        guard isMultilingual else { return nil }
        return try backend.detectLanguage(audio.samples)
    }

    /// The span of looping segments decoded again on its own, sampling from the start and with
    /// no earlier text as prompt; the caller cuts whatever still loops.
    private func redecode(
        _ span: [DecodedSegment], of samples: [Float], language: Language, task: WhisperTask, cancellation: Cancellation
    ) throws -> [DecodedSegment] {
        let rate = MonoAudio.sampleRate / 100
        let lo = max(0, min(samples.count, Int(span.first!.start) * rate))
        let hi = max(lo, min(samples.count, Int(span.last!.end) * rate))
        let shift = Int64(lo / rate)
        let again = try backend.decode(Array(samples[lo..<hi]), language: language, task: task, prompt: nil, redecoding: true,
                                       passesBefore: nil, cancellation: cancellation).segments
        return again.map { piece in
            var piece = piece
            piece.start += shift
            piece.end += shift
            piece.tokens = piece.tokens.map { token in
                var token = token
                token.start += shift
                token.end += shift
                if token.dtwTime >= 0 { token.dtwTime += shift }
                return token
            }
            return piece
        }
    }

    /// Centiseconds one encoder pass hears.
    static let windowFrames = 3000
}
