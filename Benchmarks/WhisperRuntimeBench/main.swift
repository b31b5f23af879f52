import CapforgeCore
import Foundation
import Speech
import WhisperRuntime

// Capforge's own Whisper runtime against libwhisper, 30 s window by window, on the same
// weights: each runs the window's mel, encoder pass and greedy decoding, in turn, in one process.
// Usage: whisper-runtime-bench CT2_DIR GGML_MODEL THREADS WAV...   (16 kHz mono 16-bit WAVs)
let arguments = CommandLine.arguments
guard arguments.count >= 5, let threads = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: whisper-runtime-bench CT2_DIR GGML_MODEL THREADS WAV...\n".utf8))
    exit(2)
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = (ContinuousClock.now - start).components
    return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
}

func pcm16(_ path: String) throws -> [Float] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    guard data.count > 44 else { return [] }
    return data.dropFirst(44).withUnsafeBytes { raw in
        (0 ..< raw.count / 2).map { Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))) / 32768 }
    }
}

func words(_ text: String) -> [String] {
    text.lowercased().split { !$0.isLetter && !$0.isNumber && $0 != "'" }.map(String.init)
}

WhisperNetwork.threads = threads
var runtime: RuntimeWhisperModel!
let runtimeLoad = try seconds { runtime = try RuntimeWhisperModel(contentsOf: URL(fileURLWithPath: arguments[1])) }
var engine: WhisperEngine!
let engineLoad = try seconds { engine = try WhisperEngine(modelPath: arguments[2], options: WhisperOptions(threads: threads)) }
let language: Language? = engine.isMultilingual ? .english : nil

var totals = (mel: 0.0, encode: 0.0, decode: 0.0, tokens: 0, library: 0.0, windows: 0, sameText: 0, wordsDiffering: 0, words: 0)
for path in arguments.dropFirst(4) {
    let samples = try pcm16(path)
    var offset = 0
    while offset + MonoAudio.sampleRate < samples.count {
        let slice = Array(samples[offset ..< min(samples.count, offset + 30 * MonoAudio.sampleRate)])
        let ours = try runtime.firstWindow(of: slice, language: language?.code)
        var theirs = ""
        totals.library += try seconds {
            // One encoder pass, as the runtime's (libwhisper's temperature fallback included).
            theirs = try engine.transcribeWindow(MonoAudio(samples: slice), language: .english, nextWindowFrom: 0, cancellation: Cancellation())
                .words.map(\.text).joined(separator: " ")
        }
        totals.mel += ours.melSeconds
        totals.encode += ours.encodeSeconds
        totals.decode += ours.decodeSeconds
        totals.tokens += ours.tokens.count + 1
        totals.windows += 1
        let a = words(ours.text), b = words(theirs)
        if a == b { totals.sameText += 1 }
        totals.wordsDiffering += a.difference(from: b).count
        totals.words += b.count
        offset += 30 * MonoAudio.sampleRate
    }
}
let ours = totals.mel + totals.encode + totals.decode
print(String(format: "model load: runtime %.2f s (int8 from the CT2 folder), libwhisper %.2f s", runtimeLoad, engineLoad))
print(String(format: "%d windows, %d tokens; runtime: mel %.2f s, encoder %.2f s (%.0f ms a window), decoding %.2f s (%.1f ms a token)",
             totals.windows, totals.tokens, totals.mel, totals.encode, 1000 * totals.encode / Double(totals.windows), totals.decode,
             1000 * totals.decode / Double(totals.tokens)))
print(String(format: "whole windows: runtime %.2f s, libwhisper %.2f s: ratio %.2f", ours, totals.library, ours / totals.library))
print("seconds \(totals.windows) \(totals.tokens) \(totals.mel + totals.encode) \(totals.decode) \(totals.library)")
print("same words in \(totals.sameText) of \(totals.windows) windows; \(totals.wordsDiffering) word edits against libwhisper's \(totals.words) words")
