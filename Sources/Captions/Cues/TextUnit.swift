/// The smallest piece of text a line may break before: a word, or a single character in
/// scripts written without spaces.
struct TextUnit: Equatable {
    var text: String
    /// What joins it to the unit before when both are on one line.
    var separator: String
    /// False for a character inside a word of an unspaced script: a line should not break before it.
    var startsWord = true
    var width: Int { TextMetrics.width(text) }

    static func units(of words: [String]) -> [TextUnit] {
        var units: [TextUnit] = []
        for word in words {
            for (offset, piece) in pieces(of: word).enumerated() {
                let separator = offset == 0
                    ? units.last.map { TextMetrics.separator(between: $0.text, and: piece) } ?? ""
                    : ""
                units.append(TextUnit(text: piece, separator: separator))
            }
        }
        markWordStarts(&units)
        return units
    }

    /// Recognisers split Chinese and Japanese into tokens, not words: each run of unspaced
    /// characters is segmented again, and only its word starts stay free breaks.
    private static func markWordStarts(_ units: inout [TextUnit]) {
        var index = 0
        while index < units.count {
            guard isUnspaced(units[index]) else { index += 1; continue }
            var end = index + 1
            while end < units.count, units[end].separator.isEmpty, isUnspaced(units[end]) { end += 1 }
            // Segmentation fails only without ICU's data, which CueBuilder checks at the start.
            if end - index > 1, let starts = WordSegmentation.startsWords(units[index..<end].map(\.text)) {
                for (offset, start) in starts.enumerated() { units[index + offset].startsWord = start }
            }
            index = end
        }
    }

    private static func isUnspaced(_ unit: TextUnit) -> Bool {
        unit.text.count == 1 && TextMetrics.isUnspaced(unit.text.first!)
    }

    /// Splits a word so each character of an unspaced script stands alone.
    private static func pieces(of word: String) -> [String] {
        var pieces: [String] = []
        var run = ""
        for character in word {
            if TextMetrics.isUnspaced(character) {
                if !run.isEmpty { pieces.append(run); run = "" }
                pieces.append(String(character))
            } else {
                run.append(character)
            }
        }
        if !run.isEmpty { pieces.append(run) }
        return pieces
    }

    static func join(_ units: ArraySlice<TextUnit>) -> String {
        var text = ""
        for (offset, unit) in units.enumerated() {
            if offset > 0 { text += unit.separator }
            text += unit.text
        }
        return text
    }

    static func width(_ units: ArraySlice<TextUnit>) -> Int {
        var width = 0
        for (offset, unit) in units.enumerated() {
            width += unit.width + (offset > 0 ? TextMetrics.width(unit.separator) : 0)
        }
        return width
    }
}
