import CapforgeCore

/// The captions of an ASS script: its `Dialogue` events except the notice, strictly checked
/// (a line number for every malformed event).
enum ASSReader {
    static func cues(_ document: ASSDocument) throws -> [Cue] {
        guard document.hasScriptInfoHeader else {
            throw SubtitleReadError.missingHeader(format: "ASS", expected: "[Script Info]")
        }
        for format in document.formats(in: .events) where format.fields.last != "Text" || !["Start", "End"].allSatisfy(format.fields.contains) {
            throw SubtitleReadError.malformedEvent(line: format.line + 1, reason: "the Format line must list Start and End and end with Text")
        }
        return try document.events.compactMap(cue)
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
