/// A TTML document as the reader and the re-timer see it, found in one pass (`XMLScanner`):
/// each `p` with its times on the media's clock, its text, and where each of its time
/// attributes' values is written. `begin`, `end` and `dur` are attributes in no namespace (or
/// qualified by a TTML namespace's prefix); elements count as TTML's in a TTML namespace or in
/// none, so a `p` of another vocabulary (an XHTML paragraph in metadata) is no cue. A `p`'s
/// times add to its parents' begins (`body`, `div`); a `span`'s begin to its `p`'s.
struct TTMLDocument {
    struct TimeValue {
        /// As written (from the parent's begin, or for `dur` from the element's).
        let seconds: Double
        let form: TTMLClock.Form
        /// The value's UTF-8 offsets in the text.
        let range: Range<Int>
    }

    struct Paragraph {
        /// Seconds on the media's clock.
        let start: Double
        let end: Double
        let line: Int
        /// Its text, line by line (`br` breaks), runs of markup whitespace collapsed; blank lines left out.
        let lines: [String]
        let begin: TimeValue?
        let endValue: TimeValue?
        let dur: TimeValue?
        /// From its start tag's `<` to its end tag's `>`.
        let range: Range<Int>
    }

    static let namespaces: Set<String> = ["http://www.w3.org/ns/ttml", "http://www.w3.org/2006/10/ttaf1", "http://www.w3.org/2006/04/ttaf1"]

    /// A document of more paragraphs than this is not subtitles (bounds memory on hostile input).
    static let maxParagraphs = 200_000

    let clock: TTMLClock
    let paragraphs: [Paragraph]
    /// What was assumed or left out (control characters dropped, parameters out of range).
    let warnings: [String]
    /// The first element timed outside a `p` other than a `p`: a time the re-timer cannot keep
    /// right by rewriting `p`s (on `body` or `div`, whose times their `p`s add to; a region's).
    /// Times inside a `p` (a `span`'s, a `set`'s) count from its begin and move with it.
    let otherTimed: (name: String, line: Int)?

    /// An open element: its name, what it declares, when it begins.
    private struct Open {
        let name: String
        let local: String
        let isTTML: Bool
        let namespaces: [String: String]
        let begin: Double
    }

    /// `text`: the document decoded (`TextDecoding`) and found well-formed (`TTMLReader`).
    init(_ text: String) throws {
        var scanner = XMLScanner(Array(text.utf8))
        var open: [Open] = []
        var clock = TTMLClock()
        var paragraphs: [Paragraph] = []
        var otherTimed: (name: String, line: Int)?
        var warnings: [String] = []
        // The `p` open: its start tag, times and text so far (`lineBreak` for each `br`).
        var paragraph: (tag: XMLScanner.Tag, start: Double, end: Double, begin: TimeValue?, endValue: TimeValue?, dur: TimeValue?, text: String)?
        var metadataDepth = 0
        var sawRoot = false

        func namespace(_ prefix: String, declared: [String: String]) -> String? {
            declared[prefix] ?? open.reversed().lazy.compactMap { $0.namespaces[prefix] }.first
        }

        while let token = try scanner.next() {
            switch token {
            case .start(let tag):
                var declared: [String: String] = [:]
                for attribute in tag.attributes where attribute.name == "xmlns" || attribute.name.hasPrefix("xmlns:") {
                    declared[attribute.name == "xmlns" ? "" : String(attribute.name.dropFirst(6))] = attribute.value
                }
                let (prefix, local) = Self.split(tag.name)
                let isTTML = namespace(prefix, declared: declared).map { $0.isEmpty || Self.namespaces.contains($0) } ?? true
                if !sawRoot {
                    sawRoot = true
                    guard isTTML, local == "tt" else { throw SubtitleReadError.missingHeader(format: "TTML", expected: "a <tt> element") }
                    clock = try TTMLClock(root: tag.attributes, namespace: { namespace($0, declared: declared) }, line: tag.line)
                    warnings += clock.warnings
                }
                let parentBegin = open.last?.begin ?? 0
                var begin = parentBegin
                var times: [String: TimeValue] = [:]
                var seconds: [String: Double] = [:]
                if isTTML {
                    // TTML's own attributes: unprefixed, or (where a tool qualifies them) in a TTML namespace.
                    func own(_ attribute: XMLScanner.Attribute) -> String? {
                        let (prefix, name) = Self.split(attribute.name)
                        return prefix.isEmpty || namespace(prefix, declared: declared).map(Self.namespaces.contains) == true ? name : nil
                    }
                    if let container = tag.attributes.first(where: { own($0) == "timeContainer" }), container.value.trimmingCharacters(in: .whitespaces) == "seq" {
                        throw SubtitleReadError.malformedEvent(line: tag.line, reason: "timeContainer=\"seq\" on <\(local)> (each child timed after the one before) is not read; give each <p> its own begin and end")
                    }
                    for attribute in tag.attributes {
                        guard let name = own(attribute), ["begin", "end", "dur"].contains(name) else { continue }
                        guard times[name] == nil else {
                            throw SubtitleReadError.malformedEvent(line: tag.line, reason: "<\(local)> has two \(name) attributes (one qualified by a prefix): say it once")
                        }
                        let what = name == "dur" ? "duration" : "time"
                        guard let time = clock.time(attribute.value) else {
                            throw SubtitleReadError.malformedEvent(line: tag.line, reason: "cannot read the \(what) \(Self.shown(attribute.value)) of <\(local)>")
                        }
                        guard time.seconds <= Timecode.limitSeconds else {
                            throw SubtitleReadError.malformedEvent(line: tag.line, reason: "the \(what) \(Self.shown(attribute.value)) of <\(local)> is more than \(Timecode.limitName): not a subtitle time")
                        }
                        times[name] = TimeValue(seconds: time.seconds, form: time.form, range: attribute.valueRange)
                        seconds[name] = time.seconds
                    }
                    begin += seconds["begin"] ?? 0
                    if !times.isEmpty, local != "p", paragraph == nil, otherTimed == nil { otherTimed = (local, tag.line) }
                    if local == "metadata" { metadataDepth += 1 }
                    if local == "br" { paragraph?.text.append(Self.lineBreak) }
                }
                if isTTML, local == "p" {
                    if let outer = paragraph {
                        throw SubtitleReadError.malformedEvent(line: tag.line, reason: "a <p> inside the <p> of line \(outer.tag.line): TTML has none")
                    }
                    var end = seconds["end"].map { parentBegin + $0 } ?? .infinity
                    if let dur = seconds["dur"] { end = min(end, begin + dur) }
                    guard end.isFinite else { throw SubtitleReadError.malformedEvent(line: tag.line, reason: "a <p> has no end or dur: the cue would never end") }
                    guard end <= Timecode.limitSeconds else {
                        throw SubtitleReadError.malformedEvent(line: tag.line, reason: "a <p> ends more than \(Timecode.limitName) in (its parents' begins added): not a subtitle time")
                    }
                    guard end >= begin else { throw SubtitleReadError.malformedEvent(line: tag.line, reason: "the cue ends before it starts") }
                    guard paragraphs.count < Self.maxParagraphs else {
                        throw SubtitleReadError.malformedEvent(line: tag.line, reason: "more than \(Self.maxParagraphs) cues: not a subtitle file")
                    }
                    paragraph = (tag, begin, end, times["begin"], times["end"], times["dur"], "")
                }
                if tag.selfClosing {
                    if isTTML, local == "metadata" { metadataDepth -= 1 }
                    if isTTML, local == "p", let p = paragraph {
                        paragraphs.append(Self.paragraph(p, closedAt: tag.range.upperBound))
                        paragraph = nil
                    }
                } else {
                    open.append(Open(name: tag.name, local: local, isTTML: isTTML, namespaces: declared, begin: begin))
                }
            case .end(let name, let range, let line):
                guard let element = open.popLast(), element.name == name else {
                    throw SubtitleReadError.malformedEvent(line: line, reason: "</\(name.prefix(40))> closes no open <\(name.prefix(40))>: not well-formed XML")
                }
                if element.isTTML, element.local == "metadata" { metadataDepth -= 1 }
                if element.isTTML, element.local == "p", let p = paragraph {
                    paragraphs.append(Self.paragraph(p, closedAt: range.upperBound))
                    paragraph = nil
                }
            case .text(let text, _):
                // Text in metadata (titles, descriptions) is not shown.
                if paragraph != nil, metadataDepth == 0 { paragraph?.text += text }
            }
        }
        guard sawRoot else { throw SubtitleReadError.missingHeader(format: "TTML", expected: "a <tt> element") }
        if scanner.droppedControls > 0 {
            warnings.append("line \(scanner.firstDroppedLine ?? 1): \(scanner.droppedControls) control character(s) written as character references (such as &#x9B;) were removed: no caption shows them, and terminals act on some")
        }
        self.clock = clock
        self.paragraphs = paragraphs
        self.warnings = warnings
        self.otherTimed = otherTimed
    }

    /// A `br` in the text gathered (a character no markup whitespace is).
    private static let lineBreak: Character = "\u{2028}"

    private static func paragraph(_ p: (tag: XMLScanner.Tag, start: Double, end: Double, begin: TimeValue?, endValue: TimeValue?, dur: TimeValue?, text: String),
                                  closedAt end: Int) -> Paragraph {
        // Whitespace in the markup is layout: runs collapse to a space, line by line.
        let lines = p.text.split(separator: lineBreak, omittingEmptySubsequences: false)
            .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            .filter { !$0.isEmpty }
        return Paragraph(start: p.start, end: p.end, line: p.tag.line, lines: lines, begin: p.begin, endValue: p.endValue, dur: p.dur,
                         range: p.tag.range.lowerBound..<end)
    }

    /// A value quoted for a message: cut short, without the control characters a reference can name.
    static func shown(_ value: String) -> String {
        "\"" + String(String.UnicodeScalarView(value.prefix(40).unicodeScalars.map { $0.properties.generalCategory == .control ? "\u{FFFD}" : $0 })) + "\""
    }

    private static func split(_ name: String) -> (prefix: String, local: String) {
        guard let colon = name.firstIndex(of: ":") else { return ("", name) }
        return (String(name[..<colon]), String(name[name.index(after: colon)...]))
    }
}
