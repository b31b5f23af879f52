import CapforgeCore
import Foundation
import Testing

/// What the tool prints: the program's own line breaks lay it out; a value's control and
/// direction characters are shown escaped, line breaks included; JSON stays the same JSON.
@Suite struct TerminalTextTests {
    @Test func valuesAreEscapedAndTheProgramsOwnLinesKept() {
        let name = "a\u{1B}]0;owned\u{07}\nb\u{9B}2J\u{202E}c\u{2028}d\te"
        let text: TerminalText = "file: \(name)\n  done\t\(3)"
        #expect(text.text == #"file: a\u{1B}]0;owned\u{7}\u{A}b\u{9B}2J\u{202E}c\u{2028}d\u{9}e"# + "\n  done\t3")
        #expect(TerminalText(lines: "one\ntwo\u{1B}[2J\tthree\r").text == "one\ntwo\\u{1B}[2J\tthree\\u{D}")
        let nested: TerminalText = "[\(TerminalText(lines: "x\ny"))] \(lines: "p\u{7}\nq")"
        #expect(nested.text == "[x\ny] p\\u{7}\nq")
    }

    @Test func jsonKeepsItsValuesAndLosesWhatActs() throws {
        let name = "a\u{1B}b\u{9B}c\u{202E}d\u{7F}e"
        let encoded = String(decoding: try JSONEncoder().encode(["name": name]), as: UTF8.self)
        let safe = ControlCharacters.jsonEscaped(encoded)
        #expect(!safe.unicodeScalars.contains(where: ControlCharacters.contains))
        #expect(safe.contains(#"\u009b"#) && safe.contains(#"\u202e"#) && safe.contains(#"\u007f"#))
        #expect(try JSONDecoder().decode([String: String].self, from: Data(safe.utf8)) == ["name": name])
        #expect(ControlCharacters.jsonEscaped("{\n  \"a\" : 1\n}") == "{\n  \"a\" : 1\n}")
    }
}
