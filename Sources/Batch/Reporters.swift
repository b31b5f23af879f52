import CapforgeCore
import Foundation
import Speech

/// Swift's `print` writes its text raw: Batch writes through `Terminal`.
@available(*, unavailable, message: "write through Terminal: it escapes what a terminal would act on")
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {}

/// Renders batch events somewhere: a live TTY display, plain log lines, or JSON lines.
public protocol BatchReporter: AnyObject {
    func handle(_ event: BatchEvent)
}

/// Newline-delimited JSON events for scripts and other tools (`--json`).
public final class JSONLinesReporter: BatchReporter {
    private let output: Terminal

    public init(output: FileHandle = .standardOutput) {
        self.output = Terminal(output)
    }

    public func handle(_ event: BatchEvent) {
        let object: [String: Any?]
        switch event {
        case .batchStarted(let files, let audio):
            object = ["event": "batch-started", "files": files, "audioSeconds": audio]
        case .fileStarted(let index, let total, let input, let duration):
            object = ["event": "file-started", "file": input.url.path, "index": index + 1, "total": total, "duration": duration]
        case .stage(let input, let stage, let fraction):
            object = ["event": "stage", "file": input.url.path, "stage": stage.rawValue, "fraction": fraction]
        case .tierResolved(let input, let source, let plan, let model):
            object = ["event": "tier-resolved", "file": input.url.path, "language": plan.language.code, "languageSource": source.rawValue,
                      "tier": plan.displayTier, "model": model, "basicFallback": plan.basicFallback]
        case .chunk(let input, let progress):
            object = ["event": "chunk", "file": input.url.path, "chunk": progress.chunk + 1, "chunks": progress.chunkCount,
                      "fraction": progress.fraction, "outcome": progress.record.outcome.rawValue, "tier": progress.record.tier?.rawValue,
                      "words": progress.wordsSoFar, "resumed": progress.resumed]
        case .fileFinished(_, let result):
            object = ["event": result.status == .failed ? "file-failed" : (result.status == .skipped ? "file-skipped" : "file-done"),
                      "file": result.path, "outputs": result.outputs, "tier": result.tier?.rawValue,
                      "basicShare": result.basicShare, "lowConfidenceShare": result.lowConfidenceShare, "language": result.language?.code,
                      "translatedFrom": result.translatedFrom?.code, "error": result.error,
                      "warnings": result.warnings, "notes": Self.typed(result.notes ?? []), "seconds": result.seconds]
        case .batchFinished(let results, let interrupted, let seconds):
            object = ["event": "batch-finished", "done": results.filter { $0.status == .done }.count,
                      "skipped": results.filter { $0.status == .skipped }.count, "failed": results.filter { $0.status == .failed }.count,
                      "interrupted": interrupted, "seconds": seconds]
        }
        let clean = object.mapValues { $0 ?? NSNull() }
        guard let data = try? JSONSerialization.data(withJSONObject: clean, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        output.json(String(decoding: data, as: UTF8.self))
    }

    /// The notes as their Codable form says them ({"fellBack": {"chunks": 1, …}}), for a script to read.
    private static func typed(_ notes: [TranscriptionNote]) -> Any {
        guard let data = try? JSONEncoder().encode(notes), let object = try? JSONSerialization.jsonObject(with: data) else { return [Any]() }
        return object
    }
}

/// One plain line per event, for logs and pipes (not a TTY).
public final class PlainReporter: BatchReporter {
    private let output: Terminal
    private let verbose: Bool

    public init(output: FileHandle = .standardError, verbose: Bool = false) {
        self.output = Terminal(output)
        self.verbose = verbose
    }

    private var resume = ResumeNote()

    public func handle(_ event: BatchEvent) {
        var line: String?
        switch event {
        case .batchStarted(let files, let audio):
            line = "capforge: \(files) file(s), \(ClockTime.seconds(audio)) of media"
        case .fileStarted(let index, let total, let input, _):
            resume = ResumeNote()
            line = "[\(index + 1)/\(total)] \(Format.terminalSafe(input.relativePath))"
        case .stage(let input, let stage, _):
            line = verbose ? "  \(Format.terminalSafe(input.relativePath)): \(stage.rawValue)" : nil
        case .tierResolved(let input, let source, let plan, let model):
            line = "  \(Format.terminalSafe(input.relativePath)): language \(plan.language) (\(source.rawValue)), tier \(plan.displayTier)"
                + (model.map { " (\(Format.terminalSafe($0)))" } ?? "")
        case .chunk(let input, let progress):
            line = verbose ? "  \(Format.terminalSafe(input.relativePath)): chunk \(progress.chunk + 1)/\(progress.chunkCount) \(progress.record.outcome.rawValue) \(progress.record.tier?.rawValue ?? "")"
                + progress.verdicts.map { "\n    " + Format.terminalSafe(Format.verdict($0)) }.joined() : nil
            if let note = resume.note(after: progress) { line = (line.map { $0 + "\n" } ?? "") + "  " + note }
        case .fileFinished(_, let result):
            let outcome: String
            switch result.status {
            case .done: outcome = "  done: \(result.tierLabel), \(result.words ?? 0) words, \(result.cues ?? 0) cues, \(Format.seconds(result.seconds))"
                + result.warnings.map { "\n  warning: \(Format.terminalSafe($0))" }.joined()
            case .skipped: outcome = "  skipped: outputs are current"
            case .failed: outcome = "  failed: \(Format.terminalSafe(result.error ?? "unknown error"))"
            }
            line = (resume.noteAtEnd().map { "  \($0)\n" } ?? "") + outcome
        case .batchFinished:
            line = nil
        }
        if let line { output.line(TerminalText(lines: line)) }
    }
}

/// A live display for terminals: one overall bar (files, media minutes, ETA from measured speed)
/// and one line for the file in progress (stage, percent, tier). Respects NO_COLOR.
public final class TerminalReporter: BatchReporter {
    private let output: Terminal
    private let color: Bool
    private var totalFiles = 0
    private var totalSeconds = 0.0
    private var doneFiles = 0
    private var doneSeconds = 0.0
    private var currentDuration = 0.0
    private var current = ""
    private var stage = ""
    private var fraction = 0.0
    /// How far the current file has come, for the overall bar: it never moves back when a
    /// later stage starts at 0 %.
    private var fileShare = 0.0
    private var tier = ""
    private var began = Date()
    private var linesDrawn = 0
    private var resume = ResumeNote()

    public init(output: FileHandle = .standardError, color: Bool) {
        self.output = Terminal(output)
        self.color = color
    }

    public func handle(_ event: BatchEvent) {
        switch event {
        case .batchStarted(let files, let audio):
            totalFiles = files
            totalSeconds = audio
            began = Date()
        case .fileStarted(_, _, let input, let duration):
            current = input.relativePath
            currentDuration = duration ?? 0
            stage = "start"
            fraction = 0
            fileShare = 0
            tier = ""
            resume = ResumeNote()
        case .stage(let input, _, _) where input.relativePath != current:
            // A background burn-in (--jobs 2) of the previous file: the line shows the current one.
            return
        case .stage(_, let s, let f):
            stage = s.rawValue
            fraction = f
            fileShare = max(fileShare, f)
        case .tierResolved(_, _, let plan, _):
            tier = "\(plan.language) \(plan.displayTier)"
        case .chunk(_, let progress):
            stage = "transcribe"
            fraction = progress.fraction
            fileShare = max(fileShare, progress.fraction)
            if let t = progress.record.tier, !tier.contains(t.rawValue) { tier += "+\(t.rawValue)" }
            if let note = resume.note(after: progress) { say("  \(Format.terminalSafe(current)): \(note)") }
        case .fileFinished(_, let result):
            doneFiles += 1
            doneSeconds += result.duration ?? currentDuration
            let finishedCurrent = result.relativePath == current
            if finishedCurrent { currentDuration = 0 }
            if finishedCurrent, let note = resume.noteAtEnd() { say("  \(Format.terminalSafe(current)): \(note)") }
            clear()
            switch result.status {
            case .done: mark("✔", .green, "\(result.relativePath)  \(result.tierLabel), \(result.cues ?? 0) cues")
            case .skipped: mark("↷", .grey, "\(result.relativePath)  skipped (current)")
            case .failed: mark("✘", .red, "\(result.relativePath)  \(result.error ?? "")")
            }
            if finishedCurrent { current = "" }
        case .batchFinished:
            clear()
            return
        }
        draw()
    }

    private func draw() {
        clear()
        let done = doneSeconds + currentDuration * fileShare
        let share = totalSeconds > 0 ? min(1, done / totalSeconds) : Double(doneFiles) / Double(max(1, totalFiles))
        let width = 30
        let filled = Int(share * Double(width))
        let elapsed = Date().timeIntervalSince(began)
        let eta = done > 0 && totalSeconds > done ? " ETA " + ClockTime.seconds(elapsed / done * (totalSeconds - done)) : ""
        var lines = ["[" + String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled) + "] "
            + "\(doneFiles)/\(totalFiles) files, \(ClockTime.seconds(done))/\(ClockTime.seconds(totalSeconds))\(eta)"]
        if !current.isEmpty { lines.append("  \(Format.terminalSafe(current)): \(stage) \(Int(fraction * 100))% \(tier)") }
        output.line(TerminalText(lines: lines.joined(separator: "\n")))
        linesDrawn = lines.count
    }

    /// A line of its own above the live display.
    private func say(_ line: String) {
        clear()
        output.line(TerminalText(lines: line))
    }

    private func clear() {
        for _ in 0..<linesDrawn { output.write(.control(.clearLineAbove)) }
        linesDrawn = 0
    }

    /// A finished file's line: its mark, in colour unless NO_COLOR, then what became of it.
    private func mark(_ symbol: TerminalText, _ colour: Terminal.Control, _ text: TerminalText) {
        if color {
            output.write(.control(colour), .text(symbol), .control(.plain), .text(" \(text)\n"))
        } else {
            output.line("\(symbol) \(text)")
        }
    }
}

/// The line that says a file took chunks from the journal of an interrupted run: "resumed from
/// chunk k/n" when the first chunk heard afresh arrives, or, when every chunk came from the
/// journal, at the end of the file.
struct ResumeNote {
    private var fromJournal = 0
    private var chunkCount = 0
    private var said = false

    mutating func note(after progress: ChunkProgress) -> String? {
        chunkCount = progress.chunkCount
        if progress.resumed {
            fromJournal += 1
            return nil
        }
        guard fromJournal > 0, !said else { return nil }
        said = true
        return "resumed from chunk \(progress.chunk + 1)/\(progress.chunkCount): \(fromJournal) chunk(s) came from the journal of an interrupted run"
    }

    mutating func noteAtEnd() -> String? {
        guard fromJournal > 0, !said else { return nil }
        said = true
        return "resumed: all \(chunkCount) chunk(s) came from the journal of an interrupted run"
    }
}

public enum Format {
    /// "12%", or "-" when there is nothing to count.
    static func percent(_ share: Double?) -> String {
        share.map { String(format: "%.0f%%", $0 * 100) } ?? "-"
    }

    /// "arbitrated 12.3–13.1 s: modern “so far” 0.62 vs pocketsphinx “sofa” 0.41 → modern (modern-more-confident)".
    static func verdict(_ verdict: ArbitrationVerdict) -> String {
        func side(_ words: [Word]) -> String {
            let engine = words.first?.engine ?? "rival"
            return "\(engine) “\(words.map(\.text).joined(separator: " "))” " + String(format: "%.2f", ArbitrationRules.meanScore(words))
        }
        let rival = verdict.error.map { "rival failed: \($0)" } ?? (verdict.rival.isEmpty ? "rival heard nothing" : side(verdict.rival))
        return String(format: "arbitrated %.1f–%.1f s: ", verdict.start, verdict.end)
            + "\(side(verdict.modern)) vs \(rival) → \(verdict.winner.rawValue) (\(verdict.rule.rawValue))"
    }

    static func seconds(_ value: Double) -> String {
        String(format: "%.1f s", value)
    }

    /// Time taken against the media's length, said the way round it is: "2.0× the media's length
    /// (slower than real time)" or "0.25× the media's length (4.0× faster than real time)"; a
    /// single "faster" figure read "0× faster" for a run slower than real time.
    static func realTimeFactor(taken: Double, media: Double) -> String {
        guard taken > 0, media > 0 else { return "-" }
        let factor = taken / media
        let lengths = String(format: factor < 0.1 ? "%.3f× the media's length" : "%.2f× the media's length", factor)
        if factor >= 0.995 && factor < 1.005 { return lengths + " (real time)" }
        if factor > 1 { return lengths + " (slower than real time)" }
        return lengths + String(format: media / taken < 10 ? " (%.1f× faster than real time)" : " (%.0f× faster than real time)", media / taken)
    }

    /// At most `limit` characters, keeping the end (a file's name matters more than its folders).
    public static func shortened(_ text: String, to limit: Int) -> String {
        text.count <= limit ? text : "…" + text.suffix(limit - 1)
    }

    /// Text from file names made harmless for a terminal: control characters (an ESC sequence
    /// in a name could rewrite the screen), line breaks included, and bidirectional overrides
    /// (which reorder what follows) are shown as `\u{…}` escapes.
    public static func terminalSafe(_ text: String) -> String {
        ControlCharacters.escaped(text)
    }
}
