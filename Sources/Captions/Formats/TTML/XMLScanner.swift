/// One pass over XML text that keeps where things are: start and end tags with each attribute's
/// value and its place (UTF-8 offsets), and text with its references decoded. Comments, CDATA
/// sections' markup, processing instructions and the document type are stepped over whole, so
/// nothing inside them is taken for a tag. Well-formedness is XMLParser's to judge first; this
/// only finds where things are, and each line number is a running count.
struct XMLScanner {
    struct Attribute: Sendable {
        let name: String
        /// With its references decoded.
        let value: String
        /// Between the quotes.
        let valueRange: Range<Int>
    }

    struct Tag {
        let name: String
        let attributes: [Attribute]
        let selfClosing: Bool
        /// From `<` to `>`.
        let range: Range<Int>
        let line: Int
    }

    enum Token {
        case start(Tag)
        /// `range` from `<` to `>`.
        case end(name: String, range: Range<Int>, line: Int)
        case text(String)
    }

    private let bytes: [UInt8]
    private var position = 0
    /// Line of `counted`: lines are counted once, as the scan moves on.
    private var line = 1
    private var counted = 0
    /// Control characters written as references (`&#x9B;`): never shown, so dropped and counted.
    private(set) var droppedControls = 0
    private(set) var firstDroppedLine: Int?

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func next() throws -> Token? {
        while position < bytes.count {
            let start = position
            guard bytes[start] == UInt8(ascii: "<") else {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
                position = end
                return .text(try decoded(start..<end, line: lineAt(start)))
            }
            if starts(with: "<!--") {
                position = try after("-->", from: start + 4, opened: "a comment")
            } else if starts(with: "<![CDATA[") {
                let close = try after("]]>", from: start + 9, opened: "a CDATA section")
                position = close
                return .text(String(decoding: bytes[(start + 9)..<(close - 3)], as: UTF8.self))
            } else if starts(with: "<?") {
                position = try after("?>", from: start + 2, opened: "a processing instruction")
            } else if starts(with: "<!DOCTYPE") {
                position = try afterDocumentType(start)
            } else if starts(with: "</") {
                let nameEnd = nameEnd(from: start + 2)
                let close = try after(">", from: nameEnd, opened: "an end tag")
                position = close
                return .end(name: String(decoding: bytes[(start + 2)..<nameEnd], as: UTF8.self), range: start..<close, line: lineAt(start))
            } else {
                return .start(try tag(at: start))
            }
        }
        return nil
    }

    // MARK: markup

    private mutating func tag(at start: Int) throws -> Tag {
        let at = lineAt(start)
        let nameEnd = nameEnd(from: start + 1)
        guard nameEnd > start + 1 else { throw malformed("a \"<\" that opens no tag") }
        var attributes: [Attribute] = []
        var index = nameEnd
        while true {
            index = skipSpace(from: index)
            guard index < bytes.count else { throw malformed("a tag that never closes") }
            if bytes[index] == UInt8(ascii: ">") {
                position = index + 1
                return Tag(name: name(start + 1..<nameEnd), attributes: attributes, selfClosing: false, range: start..<position, line: at)
            }
            if bytes[index] == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ">") {
                position = index + 2
                return Tag(name: name(start + 1..<nameEnd), attributes: attributes, selfClosing: true, range: start..<position, line: at)
            }
            let attributeEnd = self.nameEnd(from: index)
            var equals = skipSpace(from: attributeEnd)
            guard attributeEnd > index, equals < bytes.count, bytes[equals] == UInt8(ascii: "=") else { throw malformed("an attribute without a value") }
            equals = skipSpace(from: equals + 1)
            guard equals < bytes.count, bytes[equals] == UInt8(ascii: "\"") || bytes[equals] == UInt8(ascii: "'"),
                  let close = bytes[(equals + 1)...].firstIndex(of: bytes[equals]) else { throw malformed("an attribute value without its closing quote") }
            let range = (equals + 1)..<close
            attributes.append(Attribute(name: name(index..<attributeEnd), value: try decoded(range, line: at), valueRange: range))
            index = close + 1
        }
    }

    /// Past a document type declaration, its internal subset (declarations, comments, quoted
    /// strings, which may hold `>`) with it.
    private mutating func afterDocumentType(_ start: Int) throws -> Int {
        var index = start + 9
        var inSubset = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                guard let close = bytes[(index + 1)...].firstIndex(of: byte) else { break }
                index = close + 1
                continue
            }
            if inSubset {
                position = index
                if starts(with: "<!--") { index = try after("-->", from: index + 4, opened: "a comment"); continue }
                if starts(with: "<?") { index = try after("?>", from: index + 2, opened: "a processing instruction"); continue }
                if byte == UInt8(ascii: "]") { inSubset = false }
            } else if byte == UInt8(ascii: "[") {
                inSubset = true
            } else if byte == UInt8(ascii: ">") {
                return index + 1
            }
            index += 1
        }
        position = start
        throw malformed("a document type declaration that never closes")
    }

    // MARK: text

    /// The text of `range` with its entity and character references decoded; control characters
    /// a reference names are dropped and counted.
    private mutating func decoded(_ range: Range<Int>, line at: Int) throws -> String {
        let slice = bytes[range]
        guard slice.contains(UInt8(ascii: "&")) else { return String(decoding: slice, as: UTF8.self) }
        var result = String.UnicodeScalarView()
        var index = range.lowerBound
        var plain = index
        func flush(_ end: Int) { result.append(contentsOf: String(decoding: bytes[plain..<end], as: UTF8.self).unicodeScalars) }
        while let amp = bytes[index..<range.upperBound].firstIndex(of: UInt8(ascii: "&")) {
            flush(amp)
            guard let semicolon = bytes[amp..<min(range.upperBound, amp + 12)].firstIndex(of: UInt8(ascii: ";")) else {
                throw SubtitleReadError.malformedEvent(line: at, reason: "an \"&\" that starts no reference (write &amp;)")
            }
            let reference = String(decoding: bytes[(amp + 1)..<semicolon], as: UTF8.self)
            if let scalar = Self.predefined[reference] {
                result.append(scalar)
            } else if reference.hasPrefix("#"), let scalar = Self.character(reference.dropFirst()) {
                if Self.isControl(scalar) {
                    droppedControls += 1
                    firstDroppedLine = firstDroppedLine ?? at
                } else {
                    result.append(scalar)
                }
            } else {
                throw SubtitleReadError.malformedEvent(line: at, reason: "the reference &\(reference.prefix(12)); is not one of XML's five entities or a character: write the text itself")
            }
            index = semicolon + 1
            plain = index
        }
        flush(range.upperBound)
        return String(result)
    }

    private static let predefined: [String: Unicode.Scalar] = ["lt": "<", "gt": ">", "amp": "&", "apos": "'", "quot": "\""]

    /// `#123` or `#x7B` without its `#`.
    private static func character(_ digits: Substring) -> Unicode.Scalar? {
        let value = digits.first == "x" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
        return value.flatMap(Unicode.Scalar.init)
    }

    /// C0 but tab and line breaks, DEL, C1: nothing a caption shows, and terminals act on some.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r") || (0x7F...0x9F).contains(scalar.value)
    }

    // MARK: bytes

    private func starts(with literal: String) -> Bool {
        bytes[position...].starts(with: literal.utf8)
    }

    /// The offset after the first `literal` at or after `from`.
    private mutating func after(_ literal: String, from: Int, opened what: String) throws -> Int {
        let first = literal.utf8.first!
        var index = from
        while let candidate = bytes[min(index, bytes.count)...].firstIndex(of: first) {
            if bytes[candidate...].starts(with: literal.utf8) { return candidate + literal.utf8.count }
            index = candidate + 1
        }
        throw malformed("\(what) that never closes")
    }

    private func nameEnd(from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "/"), UInt8(ascii: ">"), UInt8(ascii: "="), UInt8(ascii: "<"), UInt8(ascii: "\""), UInt8(ascii: "'"): return index
            default: index += 1
            }
        }
        return index
    }

    private func skipSpace(from start: Int) -> Int {
        var index = start
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        return index
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    private func name(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    /// The line `offset` is on; offsets asked for only grow, so each byte is counted once.
    private mutating func lineAt(_ offset: Int) -> Int {
        while counted < offset {
            // A CR alone ends a line too; CR LF is one break.
            if bytes[counted] == 0x0A || (bytes[counted] == 0x0D && (counted + 1 == bytes.count || bytes[counted + 1] != 0x0A)) { line += 1 }
            counted += 1
        }
        return line
    }

    private mutating func malformed(_ what: String) -> SubtitleReadError {
        .malformedEvent(line: lineAt(position), reason: "not well-formed XML: \(what)")
    }
}
