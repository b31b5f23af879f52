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

    /// `text`: the document decoded (`TextDecoding`) and found well-formed (`TTMLReader`).
    init(_ text: String) throws {
        var scanner = XMLScanner(Array(text.utf8))
        var reading = Reading()
        while let token = try scanner.next() {
            switch token {
            case .start(let tag): try reading.start(tag)
            case .end(let name, let range, let line): try reading.end(name, closedAt: range.upperBound, line: line)
            case .text(let text): reading.add(text)
            }
        }
        guard reading.sawRoot else { throw SubtitleReadError.missingHeader(format: "TTML", expected: "a <tt> element") }
        var warnings = reading.clock.warnings
        if scanner.droppedControls > 0 {
            warnings.append("line \(scanner.firstDroppedLine ?? 1): \(scanner.droppedControls) control character(s) written as character references (such as &#x9B;) were removed: no caption shows them, and terminals act on some")
        }
        clock = reading.clock
        paragraphs = reading.paragraphs
        self.warnings = warnings
        otherTimed = reading.otherTimed
    }

    /// The scan's state from tag to tag: the elements open, the `p` being read.
    private struct Reading {
        /// An open element: its name, the prefixes it bound before it (to put back when it
        /// closes), when it begins.
        struct Open {
            let name: String
            let local: String
            let isTTML: Bool
            let shadowed: [(prefix: String, uri: String?)]
            let begin: Double
        }

        /// The `p` open: its start tag, times and text so far (`lineBreak` for each `br`).
        struct OpenParagraph {
            let tag: XMLScanner.Tag
            let start: Double
            let end: Double
            let times: [String: TimeValue]
            var text = ""
        }

        var clock = TTMLClock()
        var paragraphs: [Paragraph] = []
        var otherTimed: (name: String, line: Int)?
        var sawRoot = false
        private var open: [Open] = []
        /// The namespace each prefix is bound to where the scan is ("" for the default), kept
        /// as elements open and close: a lookup never walks the open elements.
        private var bindings: [String: String] = [:]
        private var paragraph: OpenParagraph?
        private var metadataDepth = 0

        mutating func start(_ tag: XMLScanner.Tag) throws {
            var shadowed: [(prefix: String, uri: String?)] = []
            for attribute in tag.attributes where attribute.name == "xmlns" || attribute.name.hasPrefix("xmlns:") {
                let prefix = attribute.name == "xmlns" ? "" : String(attribute.name.dropFirst(6))
                shadowed.append((prefix, bindings.updateValue(attribute.value, forKey: prefix)))
            }
            let bindings = self.bindings
            let namespace = { (prefix: String) in bindings[prefix] }
            let (prefix, local) = split(tag.name)
            let isTTML = namespace(prefix).map { $0.isEmpty || namespaces.contains($0) } ?? true
            if !sawRoot {
                sawRoot = true
                guard isTTML, local == "tt" else { throw SubtitleReadError.missingHeader(format: "TTML", expected: "a <tt> element") }
                clock = try TTMLClock(root: tag.attributes, namespace: namespace, line: tag.line)
            }
            let parentBegin = open.last?.begin ?? 0
            var begin = parentBegin
            if isTTML {
                let times = try self.times(of: tag, local: local, namespace: namespace)
                begin += times["begin"]?.seconds ?? 0
                if !times.isEmpty, local != "p", paragraph == nil, otherTimed == nil { otherTimed = (local, tag.line) }
                if local == "metadata" { metadataDepth += 1 }
                if local == "br" { paragraph?.text.append(lineBreak) }
                if local == "p" { try startParagraph(tag, begin: begin, parentBegin: parentBegin, times: times) }
            }
            let element = Open(name: tag.name, local: local, isTTML: isTTML, shadowed: shadowed, begin: begin)
            if tag.selfClosing { close(element, at: tag.range.upperBound) } else { open.append(element) }
        }

        mutating func end(_ name: String, closedAt offset: Int, line: Int) throws {
            guard let element = open.popLast(), element.name == name else {
                throw SubtitleReadError.malformedEvent(line: line, reason: "</\(name.prefix(40))> closes no open <\(name.prefix(40))>: not well-formed XML")
            }
            close(element, at: offset)
        }

        mutating func add(_ text: String) {
            // Text in metadata (titles, descriptions) is not shown.
            if paragraph != nil, metadataDepth == 0 { paragraph?.text += text }
        }

        private mutating func close(_ element: Open, at offset: Int) {
            for (prefix, uri) in element.shadowed.reversed() { bindings[prefix] = uri }
            guard element.isTTML else { return }
            if element.local == "metadata" { metadataDepth -= 1 }
            if element.local == "p", let p = paragraph {
                paragraphs.append(Self.paragraph(p, closedAt: offset))
                paragraph = nil
            }
        }

        /// A TTML element's `begin`, `end` and `dur`: unprefixed, or (where a tool qualifies
        /// them) in a TTML namespace; each read and bounded.
        private func times(of tag: XMLScanner.Tag, local: String, namespace: (String) -> String?) throws -> [String: TimeValue] {
            func own(_ attribute: XMLScanner.Attribute) -> String? {
                let (prefix, name) = split(attribute.name)
                return prefix.isEmpty || namespace(prefix).map(namespaces.contains) == true ? name : nil
            }
            if let container = tag.attributes.first(where: { own($0) == "timeContainer" }), container.value.trimmingCharacters(in: .whitespaces) == "seq" {
                throw SubtitleReadError.malformedEvent(line: tag.line, reason: "timeContainer=\"seq\" on <\(local)> (each child timed after the one before) is not read; give each <p> its own begin and end")
            }
            var times: [String: TimeValue] = [:]
            for attribute in tag.attributes {
                guard let name = own(attribute), ["begin", "end", "dur"].contains(name) else { continue }
                guard times[name] == nil else {
                    throw SubtitleReadError.malformedEvent(line: tag.line, reason: "<\(local)> has two \(name) attributes (one qualified by a prefix): say it once")
                }
                let what = name == "dur" ? "duration" : "time"
                guard let time = clock.time(attribute.value) else {
                    throw SubtitleReadError.malformedEvent(line: tag.line, reason: "cannot read the \(what) \(shown(attribute.value)) of <\(local)>")
                }
                guard time.seconds <= Timecode.limitSeconds else {
                    throw SubtitleReadError.malformedEvent(line: tag.line, reason: "the \(what) \(shown(attribute.value)) of <\(local)> is more than \(Timecode.limitName): not a subtitle time")
                }
                times[name] = TimeValue(seconds: time.seconds, form: time.form, range: attribute.valueRange)
            }
            return times
        }

        /// A `p`'s end: `end` from its parent's begin, `dur` from its own, the earlier of the two.
        private mutating func startParagraph(_ tag: XMLScanner.Tag, begin: Double, parentBegin: Double, times: [String: TimeValue]) throws {
            if let outer = paragraph {
                throw SubtitleReadError.malformedEvent(line: tag.line, reason: "a <p> inside the <p> of line \(outer.tag.line): TTML has none")
            }
            var end = times["end"].map { parentBegin + $0.seconds } ?? .infinity
            if let dur = times["dur"] { end = min(end, begin + dur.seconds) }
            guard end.isFinite else { throw SubtitleReadError.malformedEvent(line: tag.line, reason: "a <p> has no end or dur: the cue would never end") }
            guard end <= Timecode.limitSeconds else {
                throw SubtitleReadError.malformedEvent(line: tag.line, reason: "a <p> ends more than \(Timecode.limitName) in (its parents' begins added): not a subtitle time")
            }
            guard end >= begin else { throw SubtitleReadError.malformedEvent(line: tag.line, reason: "the cue ends before it starts") }
            guard paragraphs.count < maxParagraphs else {
                throw SubtitleReadError.malformedEvent(line: tag.line, reason: "more than \(maxParagraphs) cues: not a subtitle file")
            }
            paragraph = OpenParagraph(tag: tag, start: begin, end: end, times: times)
        }

        private static func paragraph(_ p: OpenParagraph, closedAt end: Int) -> Paragraph {
            // Whitespace in the markup is layout: runs collapse to a space, line by line.
            let lines = p.text.split(separator: lineBreak, omittingEmptySubsequences: false)
                .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
                .filter { !$0.isEmpty }
            return Paragraph(start: p.start, end: p.end, line: p.tag.line, lines: lines, begin: p.times["begin"], endValue: p.times["end"], dur: p.times["dur"],
                             range: p.tag.range.lowerBound..<end)
        }
    }

    /// A `br` in the text gathered (a character no markup whitespace is).
    private static let lineBreak: Character = "\u{2028}"

    /// A value quoted for a message: cut short, without the control characters a reference can name.
    static func shown(_ value: String) -> String {
        "\"" + String(String.UnicodeScalarView(value.prefix(40).unicodeScalars.map { $0.properties.generalCategory == .control ? "\u{FFFD}" : $0 })) + "\""
    }

    private static func split(_ name: String) -> (prefix: String, local: String) {
        guard let colon = name.firstIndex(of: ":") else { return ("", name) }
        return (String(name[..<colon]), String(name[name.index(after: colon)...]))
    }
}
