import CapforgeCore
import Foundation

/// Cues read from an SCC file, and what the reader had to skip or guess.
public struct SCCReading: Sendable, Equatable {
    public var cues: [Cue]
    public var warnings: [String]
}

/// Reads Scenarist SCC files as a CEA-608 decoder shows channel 1 (CC1): pop-on captions whole,
/// paint-on captions until erased, roll-up captions a row at a time. Work is linear in the file's
/// size; damaged words are skipped and counted, damaged timecodes fail with their line.
public enum SCCReader {
    /// How long a caption still on screen when the file ends is given.
    static let unerasedDuration = 3000

    public static func read(_ text: String) throws -> [Cue] { try decode(text).cues }

    public static func read(_ data: Data) throws -> [Cue] { try decode(data).cues }

    public static func decode(_ data: Data) throws -> SCCReading { try decode(TextDecoding.decode(data).text) }

    public static func decode(_ text: String) throws -> SCCReading {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        guard let headerIndex = lines.firstIndex(where: { !$0.allSatisfy(\.isWhitespace) }),
              lines[headerIndex].trimmingCharacters(in: .whitespaces.union(["\u{FEFF}"])).lowercased() == "scenarist_scc v1.0" else {
            throw SubtitleReadError.missingHeader(format: "SCC", expected: "the line \"Scenarist_SCC V1.0\"")
        }
        var damage = Damage()
        let sent = try transmissions(lines, after: headerIndex, damage: &damage)
        var decoder = Decoder()
        var nextFrame = 0
        for line in sent {
            // Padding fills a gap between lines, so a code before it is not doubled by one after.
            if line.frame > nextFrame { decoder.lastCode = nil }
            // A line that comes while the one before is still going out waits for it.
            nextFrame = max(line.frame, nextFrame)
            for word in line.words {
                if let word, !damage.checksParity || CEA608.hasOddParity(word) {
                    decoder.receive(word, at: SCCTimecode.milliseconds(frame: nextFrame))
                } else {
                    // A damaged copy of a code leaves the other copy to act.
                    decoder.lastCode = nil
                }
                nextFrame += 1
            }
        }
        let notes = decoder.finish()
        return SCCReading(cues: decoder.cues, warnings: damage.warnings + notes + tapeNote(sent.first))
    }

    /// A line of the file: its timecode as written and as a frame, and its words (nil where a
    /// token is not one).
    private typealias Transmission = (frame: Int, label: Substring, words: [UInt16?])

    /// The file's lines after the header, in time order.
    private static func transmissions(_ lines: [Substring], after header: Int, damage: inout Damage) throws -> [Transmission] {
        var sent: [Transmission] = []
        var previousLine = 0
        for index in lines.indices.dropFirst(header + 1) where !lines[index].allSatisfy(\.isWhitespace) {
            let fields = lines[index].split(whereSeparator: \.isWhitespace)
            let frame = try SCCTimecode.frame(fields[0], line: index + 1)
            if let previous = sent.last, frame < previous.frame {
                throw SubtitleReadError.malformedEvent(
                    line: index + 1, reason: "timecode \(fields[0]) comes before line \(previousLine)'s \(previous.label): SCC lines must be in time order")
            }
            sent.append((frame, fields[0], fields.dropFirst().map { damage.word($0, line: index + 1) }))
            previousLine = index + 1
        }
        return sent
    }

    /// Broadcast masters often start at 01:00:00;00, and their captions with them.
    private static func tapeNote(_ first: Transmission?) -> [String] {
        guard let first, first.frame >= SCCTimecode.frame(milliseconds: 3_600_000) else { return [] }
        return ["the file's timecodes start at \(first.label), as a tape's do: shift the cues if the video starts at 00:00:00"]
    }
}

/// Words that are not 4 hex digits, and words with bad parity, counted and reported once.
private struct Damage {
    private var words = 0
    private var malformed: (count: Int, line: Int, token: String) = (0, 0, "")
    private var badParity: (count: Int, line: Int) = (0, 0)

    /// The word `token` spells, or nil when it is not one.
    mutating func word(_ token: Substring, line: Int) -> UInt16? {
        guard token.count == 4, token.allSatisfy({ $0.isASCII && $0.isHexDigit }), let word = UInt16(token, radix: 16) else {
            if malformed.count == 0 { malformed = (0, line, String(token.prefix(20))) }
            malformed.count += 1
            return nil
        }
        words += 1
        if !CEA608.hasOddParity(word) {
            if badParity.count == 0 { badParity.line = line }
            badParity.count += 1
        }
        return word
    }

    /// Damage in transmission spoils a few words; a writer that left out parity bits spoils most
    /// (about half the characters), and its files read well without the check.
    var checksParity: Bool { badParity.count * 4 <= words }

    var warnings: [String] {
        var warnings: [String] = []
        if malformed.count > 0 {
            warnings.append("\(malformed.count) word(s) that are not 4 hex digits were skipped (the first, \"\(malformed.token)\", on line \(malformed.line))")
        }
        if badParity.count > 0 && checksParity {
            warnings.append("\(badParity.count) word(s) with bad parity were skipped (the first on line \(badParity.line)): the file is damaged")
        } else if badParity.count > 0 {
            warnings.append("\(badParity.count) of \(words) words have bad parity: the file was written without parity bits, so they were read without the check")
        }
        return warnings
    }
}

/// A CEA-608 decoder for CC1: the two caption memories, the caption style, and the cue on screen.
private struct Decoder {
    private enum Style { case none, popOn, paintOn, rollUp(rows: Int), text }

    /// The last code acted on: the same code in the next word is its redundant copy.
    var lastCode: UInt16?
    private(set) var cues: [Cue] = []
    private var style = Style.none
    private var displayed = Memory()
    private var loading = Memory()
    private var onChannel1 = true
    private var otherChannels: Set<String> = []
    /// The caption on screen since `start`; `lines` once its text is settled (a pop-on caption,
    /// a roll-up row scrolled up), nil while it is still being drawn.
    private var shown: (start: Int, lines: [String]?)?

    mutating func receive(_ word: UInt16, at time: Int) {
        let first = UInt8(word >> 8) & 0x7F, second = UInt8(word & 0xFF) & 0x7F
        guard (0x10...0x1F).contains(first) else {
            lastCode = nil
            // 0x01–0x0F start extended data services (XDS), not captions.
            guard first == 0 || first >= 0x20, onChannel1 else { return }
            for character in [first, second].compactMap(CEA608.basicCharacter) { write(.glyph(character), replacingPrevious: false, at: time) }
            return
        }
        if lastCode == word {
            lastCode = nil
            return
        }
        lastCode = word
        let code = first & 0x17, channel = first & 0x08 == 0 ? 1 : 2
        // Field 2's captions (CC3, CC4) have their own control codes, after 0x15 and 0x1D.
        let field2 = code == 0x15 && (0x20...0x2F).contains(second)
        onChannel1 = channel == 1 && !field2
        guard onChannel1 else {
            otherChannels.insert("CC\(field2 ? channel + 2 : channel)")
            return
        }
        control(code, second, at: time)
    }

    private mutating func control(_ code: UInt8, _ second: UInt8, at time: Int) {
        if code == 0x14, let command = CEA608.Command(rawValue: second) {
            execute(command, at: time)
        } else if let (character, replaces) = CEA608.character(code, second) {
            write(.glyph(character), replacingPrevious: replaces, at: time)
        } else if code == 0x11, (0x20...0x2F).contains(second) {
            write(.styleChange, replacingPrevious: false, at: time)
        } else if code == 0x17, (0x21...0x23).contains(second) {
            edit { $0.tab(Int(second - 0x20)) }
        } else if let (row, indent) = CEA608.preamble(code, second) {
            edit { $0.move(row: row, indent: indent) }
        }
    }

    private mutating func execute(_ command: CEA608.Command, at time: Int) {
        switch command {
        case .resumeCaptionLoading: style = .popOn
        case .resumeDirectCaptioning:
            // Each paint-on caption starts with RDC: what is already painted is a cue of its own.
            settle()
            style = .paintOn
        case .rollUp2, .rollUp3, .rollUp4: rollUp(rows: Int(command.rawValue) - 0x23, at: time)
        case .textRestart, .resumeTextDisplay: style = .text
        case .backspace: edit { $0.backspace() }
        case .deleteToEndOfRow: edit { $0.deleteToEndOfRow() }
        case .carriageReturn: carriageReturn()
        case .eraseDisplayedMemory:
            close(at: time)
            displayed.erase()
        case .eraseNonDisplayedMemory: loading.erase()
        case .endOfCaption:
            close(at: time)
            swap(&displayed, &loading)
            let lines = displayed.lines()
            if !lines.isEmpty { shown = (time, lines) }
        case .alarmOff, .alarmOn, .flashOn: break
        }
    }

    /// Applies `change` to the memory the style draws in.
    private mutating func edit(_ change: (inout Memory) -> Void) {
        switch style {
        case .popOn: change(&loading)
        case .paintOn, .rollUp: change(&displayed)
        case .none, .text: break
        }
    }

    private mutating func write(_ cell: Memory.Cell, replacingPrevious: Bool, at time: Int) {
        guard drawsOnScreen else { return edit { $0.put(cell, replacingPrevious: replacingPrevious) } }
        // A settled caption on screen is a cue of its own: what is drawn now starts the next.
        if shown?.lines != nil { close(at: time) }
        displayed.put(cell, replacingPrevious: replacingPrevious)
        if shown == nil { shown = (time, nil) }
    }

    private var drawsOnScreen: Bool {
        switch style {
        case .paintOn, .rollUp: true
        case .none, .popOn, .text: false
        }
    }

    private var rollUpRows: Int? {
        switch style {
        case .rollUp(let rows): rows
        case .none, .popOn, .paintOn, .text: nil
        }
    }

    private mutating func rollUp(rows: Int, at time: Int) {
        // Roll-up after another style starts from a clear screen.
        if rollUpRows == nil {
            close(at: time)
            displayed.erase()
            loading.erase()
            displayed.move(row: CEA608.rows, indent: 0)
        }
        style = .rollUp(rows: rows)
    }

    private mutating func carriageReturn() {
        guard let rows = rollUpRows else { return }
        // The row scrolls up and stays the cue until new text comes.
        settle()
        displayed.scroll(rows: rows)
    }

    /// Ends the caption on screen at `time`, a cue if it has text.
    private mutating func close(at time: Int) {
        settle()
        guard let current = shown else { return }
        shown = nil
        if let lines = current.lines, !lines.isEmpty, time > current.start { cues.append(Cue(start: current.start, end: time, lines: lines)) }
    }

    /// Fixes the text of the caption on screen, so that what is drawn next starts another cue:
    /// a roll-up caption is its row, any other the whole screen.
    private mutating func settle() {
        guard let current = shown, current.lines == nil else { return }
        shown = (current.start, rollUpRows == nil ? displayed.lines() : displayed.cursorRow())
    }

    /// Ends the caption still on screen, and says what was guessed or left.
    mutating func finish() -> [String] {
        var notes: [String] = []
        if let current = shown {
            let count = cues.count
            close(at: current.start + SCCReader.unerasedDuration)
            if cues.count > count {
                notes.append("the caption at \(Timecode.milliseconds(current.start, mark: ".")) is still on screen when the file ends: it was given \(SCCReader.unerasedDuration / 1000) s")
            }
        }
        if !otherChannels.isEmpty { notes.append("the file also carries \(otherChannels.sorted().joined(separator: ", ")) captions: only CC1 was read") }
        return notes
    }
}

/// One of 608's two caption memories: 15 rows of 32 cells, and the cursor.
private struct Memory {
    enum Cell: Equatable {
        case glyph(Character)
        /// A mid-row code: it changes colour or italics and takes a column, shown as a space.
        case styleChange
    }

    private static let blankRow = [Cell?](repeating: nil, count: CEA608.columns)
    private var cells = [[Cell?]](repeating: blankRow, count: CEA608.rows)
    /// Each row's text, nil once the row changes: a hostile file must not make every code redraw
    /// the whole memory.
    private var texts = [String?](repeating: "", count: CEA608.rows)
    private var row = CEA608.rows - 1
    private var column = 0

    mutating func put(_ cell: Cell, replacingPrevious: Bool) {
        // An extended character replaces the fallback before it, unless it starts the row.
        if replacingPrevious, column > 0 { column -= 1 }
        if column == CEA608.columns {
            // A decoder overwrites the last column with text past it; where the row starts blank,
            // the text was only placed too far right, and moving it left keeps every character.
            if cells[row][0] == nil {
                cells[row].removeFirst()
                cells[row].append(nil)
            }
            column -= 1
        }
        cells[row][column] = cell
        column += 1
        texts[row] = nil
    }

    mutating func backspace() {
        guard column > 0 else { return }
        column -= 1
        cells[row][column] = nil
        texts[row] = nil
    }

    mutating func deleteToEndOfRow() {
        for index in column..<CEA608.columns { cells[row][index] = nil }
        texts[row] = nil
    }

    mutating func tab(_ columns: Int) { column = min(column + columns, CEA608.columns - 1) }

    mutating func move(row: Int, indent: Int) {
        self.row = row - 1
        column = indent
    }

    mutating func erase() {
        for index in texts.indices where texts[index] != "" {
            cells[index] = Self.blankRow
            texts[index] = ""
        }
    }

    /// Roll-up: the `rows` rows ending at the cursor's move up one, and the cursor's row clears.
    mutating func scroll(rows: Int) {
        for index in max(0, row - rows + 1)..<row {
            cells[index] = cells[index + 1]
            texts[index] = texts[index + 1]
        }
        cells[row] = Self.blankRow
        texts[row] = ""
        column = 0
    }

    mutating func lines() -> [String] {
        var lines: [String] = []
        for index in 0..<CEA608.rows {
            let line = text(ofRow: index)
            if !line.isEmpty { lines.append(line) }
        }
        return lines
    }

    mutating func cursorRow() -> [String] {
        let line = text(ofRow: row)
        return line.isEmpty ? [] : [line]
    }

    private mutating func text(ofRow index: Int) -> String {
        if let text = texts[index] { return text }
        var text = ""
        let row = cells[index]
        for (column, cell) in row.enumerated() {
            switch cell {
            case .glyph(let character): text.append(character)
            case nil: text.append(" ")
            case .styleChange:
                // Beside a space, the style change's own space would double it.
                let next = column + 1 < row.count ? row[column + 1] : nil
                if text.last != " ", next != nil, next != .glyph(" ") { text.append(" ") }
            }
        }
        text = text.trimmingCharacters(in: .whitespaces)
        texts[index] = text
        return text
    }
}
