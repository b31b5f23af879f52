import CapforgeCore
import Foundation

/// Scenarist SCC: CEA-608 pop-on captions on CC1, as US broadcast takes them. 608 has a small
/// character set, a 32-column grid and sends one 2-byte word per frame, so a caption is loaded
/// before it shows; `warnings` says what the file could not carry as given.
public struct SCCWriter: TextSubtitleWriter {
    public let cues: [Cue]
    /// What the format forced, a sentence per kind (characters, re-wrapped or cut text, timing)
    /// naming the first cues it touched.
    public let warnings: [String]
    private let lines: [(frame: Int, words: [UInt16])]

    /// Broadcast practice: a pop-on caption keeps to the bottom 4 rows.
    static let maxRows = 4

    public init(cues: [Cue]) {
        self.cues = cues
        var report = CharacterReport()
        var notes = LayoutNotes()
        var captions: [Schedule.Caption] = []
        let ordered = cues.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
        for (index, cue) in ordered {
            let name = "cue \(index + 1) (\(Timecode.milliseconds(cue.start, mark: ".")))"
            let rows = Self.rows(cue, name: name, report: &report, notes: &notes)
            guard !rows.isEmpty else {
                notes.empty.add(name)
                continue
            }
            captions.append(Schedule.Caption(
                name: name, start: SCCTimecode.frame(milliseconds: cue.start), end: SCCTimecode.frame(milliseconds: cue.end),
                units: Self.loadUnits(rows)))
        }
        let schedule = Schedule(captions)
        lines = schedule.lines
        warnings = report.warnings + notes.warnings + schedule.warnings
    }

    public func render() -> String {
        var text = "Scenarist_SCC V1.0\n"
        for line in lines {
            text += "\n" + SCCTimecode.dropFrameLabel(line.frame) + "\t" + line.words.map(Self.hex).joined(separator: " ") + "\n"
        }
        return text
    }

    static func hex(_ word: UInt16) -> String {
        let digits = String(word, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    // MARK: Layout

    /// The cue's text on the grid: characters 608 has, rows of at most 32 columns, at most 4 rows.
    private static func rows(_ cue: Cue, name: String, report: inout CharacterReport, notes: inout LayoutNotes) -> [String] {
        let lines = cue.lines.flatMap { $0.split(whereSeparator: \.isNewline) }
            .map { carried(String($0), cue: name, report: &report) }
            .filter { !$0.isEmpty }
        var rows = LineWrap.wrap(lines, columns: CEA608.columns)
        if rows.count > maxRows {
            // Wrapping the text as one paragraph may use fewer rows than wrapping each line.
            let reflowed = LineWrap.wrap([lines.joined(separator: " ")], columns: CEA608.columns)
            if reflowed.count < rows.count { rows = reflowed }
        }
        if rows != lines { notes.rewrapped.add("\(name), \(lines.count) line(s), the longest \(lines.map(\.count).max() ?? 0) characters") }
        if rows.count > maxRows {
            notes.cut.add("\(name) lost \u{201C}\(rows[maxRows...].joined(separator: " "))\u{201D}")
            rows = Array(rows.prefix(maxRows))
        }
        return rows
    }

    /// `line` in characters 608 has: a look-alike for one it lacks, or nothing.
    private static func carried(_ line: String, cue: String, report: inout CharacterReport) -> String {
        var text = ""
        var dropped = false
        for character in line {
            if CEA608.glyphs[character] != nil {
                text.append(character)
                continue
            }
            let replacement = substitute(character)
            report.add(character, replacement: replacement, cue: cue)
            text += replacement
            dropped = dropped || replacement.isEmpty
        }
        // A character left out between two words would leave two spaces.
        return dropped ? text.split(separator: " ").joined(separator: " ") : text.trimmingCharacters(in: .whitespaces)
    }

    private static let lookAlikes: [Character: String] = [
        "…": "...", "–": "-", "‒": "-", "‐": "-", "‑": "-", "−": "-", "‚": ",", "„": "\"", "‹": "<", "›": ">", "`": "'", "´": "'",
        "×": "x",
    ]

    private static func substitute(_ character: Character) -> String {
        if character.isWhitespace { return " " }
        if let lookAlike = lookAlikes[character] { return lookAlike }
        // An accent 608 lacks on a letter it has: the bare letter reads better than nothing.
        let scalars = String(character).decomposedStringWithCanonicalMapping.unicodeScalars
        if scalars.count > 1, let base = scalars.first, CEA608.glyphs[Character(base)] != nil { return String(base) }
        return ""
    }

    // MARK: Codes

    /// Control codes go twice, so that a decoder missing one still acts (it skips the repeat).
    private static func doubled(_ word: UInt16) -> [UInt16] { [word, word] }

    /// The words loading `rows`, centred at the bottom of the screen, into non-displayed memory,
    /// in units that must not be split: an erase between a code's two copies would make both act.
    private static func loadUnits(_ rows: [String]) -> [[UInt16]] {
        var units = [doubled(CEA608.word(.resumeCaptionLoading)), doubled(CEA608.word(.eraseNonDisplayedMemory))]
        let firstRow = CEA608.rows + 1 - rows.count
        for (offset, row) in rows.enumerated() {
            let column = (CEA608.columns - row.count) / 2
            units.append(doubled(CEA608.preamble(row: firstRow + offset, indent: column / 4 * 4)))
            if column % 4 > 0 { units.append(doubled(CEA608.tabOffset(column % 4))) }
            units += characterUnits(row)
        }
        return units
    }

    /// Basic characters two to a word (a lone one padded with a null); special and extended
    /// characters as doubled codes, an extended one after its basic fallback.
    private static func characterUnits(_ row: String) -> [[UInt16]] {
        var units: [[UInt16]] = []
        var pending: UInt8?
        func basic(_ byte: UInt8) {
            if let first = pending {
                units.append([CEA608.word(first, byte)])
                pending = nil
            } else {
                pending = byte
            }
        }
        func code(_ first: UInt8, _ second: UInt8) {
            if let lone = pending { units.append([CEA608.word(lone, 0)]) }
            pending = nil
            units.append(doubled(CEA608.word(first, second)))
        }
        for character in row {
            switch CEA608.glyphs[character] {
            case .basic(let byte): basic(byte)
            case .special(let second): code(0x11, second)
            case .extended(let set, let second, let fallback):
                basic(fallback)
                code(set, second)
            case nil: break  // `carried` left only characters 608 has
            }
        }
        if let lone = pending { units.append([CEA608.word(lone, 0)]) }
        return units
    }
}

/// Warnings of one kind, said once: how many, and the first few in detail.
private struct Notes {
    private let summary: String
    private var details: [String] = []

    init(_ summary: String) { self.summary = summary }

    mutating func add(_ detail: String) { details.append(detail) }

    var warning: String? {
        guard !details.isEmpty else { return nil }
        let more = details.count > 5 ? "; and \(details.count - 5) more" : ""
        return "SCC: \(details.count) \(summary): " + details.prefix(5).joined(separator: "; ") + more
    }
}

private struct LayoutNotes {
    var rewrapped = Notes("cue(s) re-wrapped to fit CEA-608's \(CEA608.columns) columns and \(SCCWriter.maxRows) rows")
    var cut = Notes("cue(s) cut to the \(SCCWriter.maxRows) rows a caption may use")
    var empty = Notes("cue(s) with no text CEA-608 can show, left out")

    var warnings: [String] { [rewrapped, cut, empty].compactMap(\.warning) }
}

/// Characters 608 lacks, each counted, then said with the first cue it was in.
private struct CharacterReport {
    private var order: [Character] = []
    private var seen: [Character: (replacement: String, count: Int, firstCue: String)] = [:]

    mutating func add(_ character: Character, replacement: String, cue: String) {
        if seen[character] == nil { order.append(character) }
        seen[character, default: (replacement, 0, cue)].count += 1
    }

    var warnings: [String] {
        var leftOut = Notes("character(s) CEA-608 has not, left out")
        var replaced = Notes("character(s) CEA-608 has not, written as look-alikes")
        for character in order {
            guard let entry = seen[character] else { continue }
            let codes = character.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
            let times = entry.count == 1 ? "in \(entry.firstCue)" : "\(entry.count) times, first in \(entry.firstCue)"
            if entry.replacement.isEmpty {
                leftOut.add("\u{201C}\(character)\u{201D} (\(codes)) \(times)")
            } else {
                replaced.add("\u{201C}\(character)\u{201D} (\(codes)) as \u{201C}\(entry.replacement)\u{201D} \(times)")
            }
        }
        return [leftOut.warning, replaced.warning].compactMap { $0 }
    }
}

/// When each word goes out, one per frame. A caption's end-of-caption code (EOC) comes at its
/// start, its load as late as possible before, and an erase (EDM) at its end unless the next EOC
/// replaces it by then. Loads go out while the caption before is shown, around its erase.
private struct Schedule {
    struct Caption {
        var name: String
        var start: Int
        var end: Int
        var units: [[UInt16]]
    }

    private(set) var lines: [(frame: Int, words: [UInt16])] = []
    private(set) var warnings: [String] = []

    init(_ captions: [Caption]) {
        var sent: [(frame: Int, word: UInt16)] = []
        var shown: [(from: Int, until: Int)] = []
        var nextFree = 0
        for caption in captions {
            let count = caption.units.reduce(0) { $0 + $1.count }
            var erase = shown.last.map { max(captions[shown.count - 1].end, $0.from + 2) }
            // No room for the erase before this EOC: the EOC replaces the caption at most a frame late.
            if let frame = erase, max(caption.start, nextFree + count) < frame + 2 { erase = nil }
            let (eoc, frames) = Self.place(caption.units, start: caption.start, earliest: nextFree, erase: erase)
            if let frame = erase { sent += Self.twice(CEA608.word(.eraseDisplayedMemory), at: frame) }
            if !shown.isEmpty { shown[shown.count - 1].until = erase ?? eoc }
            sent += zip(frames, caption.units.joined()).map { (frame: $0, word: $1) }
            sent += Self.twice(CEA608.word(.endOfCaption), at: eoc)
            shown.append((eoc, eoc))
            nextFree = eoc + 2
        }
        if let last = shown.last, let caption = captions.last {
            let erase = max(caption.end, last.from + 2)
            sent += Self.twice(CEA608.word(.eraseDisplayedMemory), at: erase)
            shown[shown.count - 1].until = erase
        }
        lines = Self.lines(sent.sorted { $0.frame < $1.frame })
        warnings = Self.warnings(captions, shown)
    }

    private static func twice(_ word: UInt16, at frame: Int) -> [(frame: Int, word: UInt16)] {
        [(frame, word), (frame + 1, word)]
    }

    /// The EOC's frame (the caption's start, or as soon after as its load fits after `earliest`)
    /// and the frame of each load word.
    private static func place(_ units: [[UInt16]], start: Int, earliest: Int, erase: Int?) -> (eoc: Int, frames: [Int]) {
        let count = units.reduce(0) { $0 + $1.count } + (erase == nil ? 0 : 2)
        var eoc = max(start, earliest + count, erase.map { $0 + 2 } ?? 0)
        while true {
            let frames = fill(units, before: eoc, around: erase)
            // A unit moved before the erase can leave a frame unused: each round moves the EOC on.
            guard let first = frames.first, first < earliest else { return (eoc, frames) }
            eoc += earliest - first
        }
    }

    /// Frames for `units`, the last ending just before `end`, none on the erase's two frames.
    private static func fill(_ units: [[UInt16]], before end: Int, around erase: Int?) -> [Int] {
        var starts: [Int] = []
        var next = end
        for unit in units.reversed() {
            var first = next - unit.count
            if let erase, first < erase + 2, next > erase { first = erase - unit.count }
            starts.append(first)
            next = first
        }
        return zip(starts.reversed(), units).flatMap { first, unit in first..<first + unit.count }
    }

    /// Words on consecutive frames share a line.
    private static func lines(_ sent: [(frame: Int, word: UInt16)]) -> [(frame: Int, words: [UInt16])] {
        var lines: [(frame: Int, words: [UInt16])] = []
        for (frame, word) in sent {
            if let last = lines.last, last.frame + last.words.count == frame {
                lines[lines.count - 1].words.append(word)
            } else {
                lines.append((frame, [word]))
            }
        }
        return lines
    }

    /// Captions not shown when asked; a frame's slack at the end is the rounding of milliseconds
    /// to frames.
    private static func warnings(_ captions: [Caption], _ shown: [(from: Int, until: Int)]) -> [String] {
        var late = Notes("caption(s) shown late: loading takes a frame per word, and there were not enough free frames before them")
        var replaced = Notes("caption(s) replaced before their end by the next cue, which starts first (pop-on shows one caption at a time)")
        var lengthened = Notes("caption(s) shown for 2 frames, the least a caption can be")
        let time = { (frame: Int) in Timecode.milliseconds(SCCTimecode.milliseconds(frame: frame), mark: ".") }
        for (caption, shown) in zip(captions, shown) {
            let detail = "\(caption.name) shown \(time(shown.from)) --> \(time(shown.until))"
            if shown.from > caption.start {
                let seconds = String(format: "%.2f", Double(SCCTimecode.milliseconds(frame: shown.from - caption.start)) / 1000)
                late.add("\(detail), \(seconds) s late, \(caption.units.reduce(2) { $0 + $1.count }) words")
            } else if shown.until < caption.end - 1 {
                replaced.add(detail)
            } else if shown.until > caption.end + 1 {
                lengthened.add(detail)
            }
        }
        return [late, replaced, lengthened].compactMap(\.warning)
    }
}
