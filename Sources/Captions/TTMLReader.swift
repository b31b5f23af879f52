import CapforgeCore
import Foundation
import FoundationXML

/// Reads TTML: IMSC (1.0.1 and 1.1), EBU-TT-D, DFXP. Each `p` is a cue, timed by its `begin`,
/// `end` or `dur` within its parents' (`body`, `div`) begins; a `span` or `br` inside adds to
/// its text. Time expressions: clock time (`00:01:02.5`, `00:01:02:12` frames), offset time
/// (`62.5s`, `1500ms`, `90f`, `600t` ticks, `1h`, `2m`), with the document's frame and tick rates.
enum TTMLReader {
    static func cues(_ data: Data) throws -> [Cue] {
        let delegate = Delegate()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        // A subtitle file names nothing outside itself.
        parser.shouldResolveExternalEntities = false
        if !parser.parse() {
            if let error = delegate.error { throw error }
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "not well-formed XML"
            throw SubtitleReadError.malformedEvent(line: parser.lineNumber, reason: "not readable TTML: \(reason)")
        }
        if let error = delegate.error { throw error }
        guard delegate.sawRoot else { throw SubtitleReadError.missingHeader(format: "TTML", expected: "a <tt> element") }
        return delegate.cues
    }

    /// The rates that give frames and ticks their length.
    struct Clock {
        var frameRate = 30.0
        var tickRate: Double?

        /// Seconds, or nil when `text` is no TTML time expression.
        func seconds(_ text: String) -> Double? {
            let value = text.trimmingCharacters(in: .whitespaces)
            let parts = value.split(separator: ":", omittingEmptySubsequences: false)
            if parts.count == 3 || parts.count == 4 {
                guard let hours = Double(parts[0]), let minutes = Double(parts[1]), let secs = Double(parts[2]),
                      hours >= 0, (0..<60).contains(minutes), secs >= 0, secs < 61 else { return nil }
                var total = hours * 3600 + minutes * 60 + secs
                if parts.count == 4 {
                    // Frames, with optional sub-frames after a dot.
                    guard let frames = Double(parts[3]), frames >= 0 else { return nil }
                    total += frames / frameRate
                }
                return total
            }
            let units: [(String, Double)] = [("ms", 0.001), ("h", 3600), ("m", 60), ("s", 1), ("f", 1 / frameRate), ("t", 1 / (tickRate ?? frameRate))]
            for (unit, scale) in units where value.hasSuffix(unit) {
                guard let number = Double(value.dropLast(unit.count)), number.isFinite, number >= 0 else { return nil }
                return number * scale
            }
            return nil
        }
    }

    final class Delegate: NSObject, XMLParserDelegate {
        var cues: [Cue] = []
        var error: SubtitleReadError?
        var sawRoot = false
        private var clock = Clock()
        /// Begin of each open element (seconds on the media's clock), innermost last.
        private var begins: [Double] = []
        private var names: [String] = []
        private var paragraph: (start: Double, end: Double, line: Int, text: String)?
        private weak var parser: XMLParser?

        /// A `br` in the text gathered (a character no markup whitespace is).
        static let lineBreak: Character = "\u{2028}"

        /// A document of more cues than this is not subtitles (bounds memory on hostile input).
        static let maxCues = 200_000

        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            self.parser = parser
            let name = local(element)
            let parent = begins.last ?? 0
            if name == "tt" {
                sawRoot = true
                read(rates: attributes)
            }
            var begin = parent
            if let text = attribute("begin", attributes) {
                guard let offset = clock.seconds(text) else { return fail(parser, "cannot read the time \"\(text.prefix(40))\" of <\(name)>") }
                begin = parent + offset
            }
            names.append(name)
            begins.append(begin)
            switch name {
            case "p":
                var end = Double.infinity
                if let text = attribute("end", attributes) {
                    guard let value = clock.seconds(text) else { return fail(parser, "cannot read the time \"\(text.prefix(40))\" of <p>") }
                    end = parent + value
                }
                if let text = attribute("dur", attributes) {
                    guard let value = clock.seconds(text) else { return fail(parser, "cannot read the duration \"\(text.prefix(40))\" of <p>") }
                    end = min(end, begin + value)
                }
                guard end.isFinite else { return fail(parser, "a <p> has no end or dur: the cue would never end") }
                paragraph = (begin, end, parser.lineNumber, "")
            case "br":
                paragraph?.text.append(Self.lineBreak)
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            let name = local(element)
            // libxml2 recovers from a tag closed out of turn; a subtitle file is refused instead.
            guard names.last == name else { return fail(parser, "</\(name)> closes <\(names.last ?? "nothing")>: not well-formed XML") }
            if name == "p", let p = paragraph {
                paragraph = nil
                guard p.end >= p.start else { return fail(parser, "the cue ends before it starts", line: p.line) }
                // Whitespace in the markup is layout: runs collapse to a space, line by line.
                let lines = p.text.split(separator: Self.lineBreak, omittingEmptySubsequences: false)
                    .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
                    .filter { !$0.isEmpty }
                if !lines.isEmpty {
                    guard cues.count < Self.maxCues else { return fail(parser, "more than \(Self.maxCues) cues: not a subtitle file") }
                    cues.append(Cue(start: Int((p.start * 1000).rounded()), end: Int((p.end * 1000).rounded()), lines: lines))
                }
            }
            if !names.isEmpty {
                names.removeLast()
                begins.removeLast()
            }
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
            // libxml2 may recover and go on; a subtitle file that is not well-formed is refused.
            fail(parser, "not well-formed XML at column \(parser.columnNumber) (XML parser error \((parseError as NSError).code))")
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            // Text in metadata (titles, descriptions) is not shown.
            guard paragraph != nil, !names.contains("metadata") else { return }
            paragraph?.text += string
        }

        private func read(rates attributes: [String: String]) {
            if let rate = attribute("frameRate", attributes).flatMap(Double.init), rate > 0, rate <= 1000 {
                var multiplier = 1.0
                let parts = (attribute("frameRateMultiplier", attributes) ?? "").split(separator: " ").compactMap { Double($0) }
                if parts.count == 2, parts[0] > 0, parts[1] > 0 { multiplier = parts[0] / parts[1] }
                clock.frameRate = rate * multiplier
            }
            if let rate = attribute("tickRate", attributes).flatMap(Double.init), rate > 0 { clock.tickRate = rate }
        }

        /// An attribute by its local name, whatever prefix the document gave its namespace.
        private func attribute(_ name: String, _ attributes: [String: String]) -> String? {
            attributes.first { local($0.key) == name }?.value
        }

        private func local(_ name: String) -> String {
            name.split(separator: ":").last.map(String.init) ?? name
        }

        private func fail(_ parser: XMLParser, _ reason: String, line: Int? = nil) {
            if error == nil { error = .malformedEvent(line: line ?? parser.lineNumber, reason: reason) }
            parser.abortParsing()
        }
    }
}
