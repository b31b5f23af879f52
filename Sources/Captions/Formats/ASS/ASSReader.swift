import CapforgeCore

/// The captions of an ASS script: its `Dialogue` events except the notice, strictly checked
/// (a line number for every malformed event).
enum ASSReader {
    static func cues(_ document: ASSDocument) throws -> [Cue] {
        var events = Events()
        var cues: [Cue] = []
        for (index, line) in document.lines.enumerated() {
            if let cue = try events.add(line, index: index)?.cue { cues.append(cue) }
        }
        try events.finish()
        return cues
    }

    /// A `Dialogue` event, checked, with the caption it shows (nil for the notice).
    struct Event {
        let record: ASSDocument.Record
        let cue: Cue?
    }

    /// A script's events a line at a time, so a script of any size is read in the memory of
    /// one line; the first problem in the file is the one reported, whole or streamed.
    struct Events {
        private var started = false
        private var scanner = ASSDocument.RecordScanner("Dialogue", in: .events)

        /// The event line `index` (from 0) holds, if it holds one.
        mutating func add(_ line: String, index: Int) throws -> Event? {
            guard started else {
                guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
                // The first line that is not blank must be the header every script starts with.
                guard ASSDocument.Section.opened(by: line) == .scriptInfo else { throw Self.missingHeader }
                started = true
                return nil
            }
            switch scanner.scan(line, index: index) {
            case .format(let fields):
                guard fields.last == "Text", ["Start", "End"].allSatisfy(fields.contains) else {
                    throw SubtitleReadError.malformedEvent(line: index + 1, reason: "the Format line must list Start and End and end with Text")
                }
                return nil
            case .record(let record):
                return Event(record: record, cue: try ASSReader.cue(record))
            case nil:
                return nil
            }
        }

        /// Ends the script: one without a line but blank ones has no header either.
        func finish() throws {
            guard started else { throw Self.missingHeader }
        }

        private static let missingHeader = SubtitleReadError.missingHeader(format: "ASS", expected: "[Script Info]")
    }

    private static func cue(_ event: ASSDocument.Record) throws -> Cue? {
        let line = event.line + 1
        guard event.isComplete else {
            throw SubtitleReadError.malformedEvent(line: line, reason: "expected \(event.format.count) fields as the Format line says, found \(event.values.count)")
        }
        if event.isNotice { return nil }
        guard let start = event.startMilliseconds, let end = event.endMilliseconds else {
            throw SubtitleReadError.malformedTiming(line: line, text: event.values.joined(separator: ","))
        }
        guard end <= Timecode.limitMilliseconds else {
            throw SubtitleReadError.malformedEvent(line: line, reason: "the End time \"\(event["End"]?.prefix(40) ?? "")\" is more than \(Timecode.limitName) in: not a subtitle time")
        }
        guard end >= start else { throw SubtitleReadError.endBeforeStart(line: line) }
        let lines = ASSEventText(event.text).lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return Cue(start: start, end: end, lines: lines)
    }
}
