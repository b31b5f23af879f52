import CapforgeCore
import Foundation
import FoundationXML

/// Reads TTML: IMSC (1.0.1 and 1.1), EBU-TT-D, DFXP. libxml2 (through XMLParser) first judges
/// the document well-formed; then `TTMLDocument` finds each `p`, a cue timed by its `begin`,
/// `end` or `dur` within its parents' begins, whose `span`s and `br`s add to its text.
enum TTMLReader {
    static func read(_ text: String) throws -> (cues: [Cue], warnings: [String]) {
        let document = try self.document(text)
        let cues = document.paragraphs.compactMap { p in
            p.lines.isEmpty ? nil : Cue(start: Int((p.start * 1000).rounded()), end: Int((p.end * 1000).rounded()), lines: p.lines)
        }
        return (cues, document.warnings)
    }

    /// `text` as a TTML document, once found well-formed XML.
    static func document(_ text: String) throws -> TTMLDocument {
        var bytes = Array(text.utf8)
        // The text is decoded already: libxml2 must not decode it again as its declaration says.
        if let name = TextDecoding.declaredEncoding(bytes) { bytes.replaceSubrange(name, with: "UTF-8".utf8) }
        let delegate = WellFormed()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = delegate
        // A subtitle file names nothing outside itself.
        parser.shouldResolveExternalEntities = false
        if !parser.parse() || delegate.error != nil {
            if let error = delegate.error { throw error }
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "not well-formed XML"
            throw SubtitleReadError.malformedEvent(line: parser.lineNumber, reason: "not readable TTML: \(reason)")
        }
        return try TTMLDocument(text)
    }

    private final class WellFormed: NSObject, XMLParserDelegate {
        var error: SubtitleReadError?

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
            // libxml2 may recover and go on; a subtitle file that is not well-formed is refused.
            if error == nil {
                error = .malformedEvent(line: parser.lineNumber, reason: "not well-formed XML at column \(parser.columnNumber) (XML parser error \((parseError as NSError).code))")
            }
            parser.abortParsing()
        }
    }
}
