/// Splits the text of one cue into lines: as few as fit, then the break that reads best.
struct LineBreaker {
    let maxWidth: Int
    let maxLines: Int
    /// The language's phrase rules; without them line lengths are only balanced.
    let rules: BreakRules?

    /// The fewest lines the units fill when packed greedily (which is the minimum).
    func lineCount(_ units: [TextUnit]) -> Int {
        guard !units.isEmpty else { return 0 }
        var lines = 1
        var width = 0
        for (index, unit) in units.enumerated() {
            let added = index == 0 || width == 0 ? unit.width : TextMetrics.width(unit.separator) + unit.width
            if width > 0 && width + added > maxWidth {
                lines += 1
                width = unit.width
            } else {
                width += added
            }
        }
        return lines
    }

    func fits(_ units: [TextUnit]) -> Bool {
        lineCount(units) <= maxLines && units.allSatisfy { $0.width <= maxWidth }
    }

    /// Lines (0-based; the last is left out: where a cue ends is the cue builder's choice) that
    /// end on a word leaving its phrase open.
    static func openLineEnds(_ lines: [String], rules: BreakRules) -> [Int] {
        lines.dropLast().indices.filter { lines[$0].split(separator: " ").last.map { rules.leavesPhraseOpen(String($0)) } ?? false }
    }

    /// Whether this breaker's best layout of the words of `lines` leaves a line open too: no
    /// break within its width avoids it. nil without phrase rules or when the words do not fit.
    func mustLeaveLineOpen(_ lines: [String]) -> Bool? {
        guard let rules, let laid = layout(TextUnit.units(of: lines.flatMap { $0.split(separator: " ").map(String.init) })) else { return nil }
        return !Self.openLineEnds(laid, rules: rules).isEmpty
    }

    /// The best layout in the fewest lines, or nil when the units do not fit. A dynamic
    /// programme over break positions weighs phrase rules against line balance.
    func layout(_ units: [TextUnit]) -> [String]? {
        lineStarts(units).map { bounds in zip(bounds, bounds.dropFirst() + [units.count]).map { TextUnit.join(units[$0..<$1]) } }
    }

    /// Breaks no reader would choose in the best layout: inside a word of an unspaced script,
    /// or before closing punctuation (the cue builder weighs them when choosing cues).
    func awkwardBreaks(_ units: [TextUnit]) -> Int {
        // Only unspaced scripts and punctuation standing alone can be broken awkwardly: for
        // words separated by spaces (punctuation attached) no layout is needed to know.
        guard units.contains(where: { unit in unit.text.first.map { TextMetrics.isUnspaced($0) || Punctuation.mayNotStartLine($0) } ?? false }) else { return 0 }
        return (lineStarts(units) ?? []).dropFirst().filter { breakCost(units, before: $0) >= Self.insideWord }.count
    }

    /// The index of each line's first unit in the best layout, 0 first.
    private func lineStarts(_ units: [TextUnit]) -> [Int]? {
        guard fits(units) else { return nil }
        let count = lineCount(units)
        guard count > 1 else { return [0] }
        // best[l][i]: cheapest way to set units[0..<i] in l lines; choice remembers the last break.
        let n = units.count
        let ideal = Double(TextUnit.width(units[...])) / Double(count)
        var best = Array(repeating: Array(repeating: Double.infinity, count: n + 1), count: count + 1)
        var choice = Array(repeating: Array(repeating: 0, count: n + 1), count: count + 1)
        best[0][0] = 0
        for line in 1...count {
            for end in 1...n {
                for start in 0..<end where best[line - 1][start].isFinite {
                    if line == 1 && start != 0 { continue }
                    let width = TextUnit.width(units[start..<end])
                    guard width <= maxWidth else { continue }
                    if line == count && end != n { continue }
                    let cost = best[line - 1][start] + (start > 0 ? breakCost(units, before: start) : 0)
                        + shapeCost(width: width, ideal: ideal, isLast: line == count)
                    if cost < best[line][end] {
                        best[line][end] = cost
                        choice[line][end] = start
                    }
                }
            }
        }
        var starts: [Int] = []
        var end = n
        for line in stride(from: count, to: 0, by: -1) {
            end = choice[line][end]
            starts.insert(end, at: 0)
        }
        return starts
    }

    /// Balanced or bottom-heavy lines read best; a long line over a short one worst.
    private func shapeCost(width: Int, ideal: Double, isLast: Bool) -> Double {
        let deviation = Double(width) - ideal
        return abs(deviation) * 0.1 + (isLast && deviation < 0 ? -deviation * 0.4 : 0)
    }

    private func breakCost(_ units: [TextUnit], before index: Int) -> Double {
        let left = units[index - 1]
        let right = units[index]
        // Closing punctuation may not start a line, nor an opening bracket end one (CJK line
        // breaking rules, which hold for any script).
        if let first = right.text.first, Punctuation.mayNotStartLine(first) { return Self.forbidden }
        if let last = left.text.last, Punctuation.mayNotEndLine(last) { return Self.forbidden }
        // Unspaced scripts break between words (as the text's segmentation finds them), not inside one.
        let unspaced = right.separator.isEmpty && TextMetrics.isUnspaced(right.text.first ?? " ")
        if unspaced && !right.startsWord { return Self.insideWord }
        // A line ending on a word that waits for the next ("to", "the", "Mr.") is what lint warns
        // about: the same rule, priced above any difference in line balance so that it is chosen
        // only where no other break fits (and lint then says so).
        if rules?.leavesPhraseOpen(left.text) == true { return Self.leavesPhraseOpen }
        if Punctuation.endsSentence(left.text) { return -8 }
        if Punctuation.endsClause(left.text) { return -6 }
        if unspaced {
            // A particle belongs to the word before it (言葉を / 覚える, not 言葉 / を覚える).
            let wholeWord = index + 1 == units.count || units[index + 1].startsWord
            return wholeWord && Self.particles.contains(right.text) ? 6 : 0
        }
        guard let rules else { return 0 }
        let leftWord = BreakRules.normalised(left.text)
        let rightWord = BreakRules.normalised(right.text)
        var cost = 0.0
        if rules.bindsForward.contains(leftWord) { cost += 8 }
        if rules.startsPhrase.contains(rightWord) { cost -= 2 }
        if rules.capitalisedNames && BreakRules.isCapitalised(left.text) && BreakRules.isCapitalised(right.text) && leftWord != "i" {
            cost += 5  // likely a first and last name
        }
        return cost
    }

    /// One-character Japanese and Chinese particles, which end the phrase before them.
    static let particles: Set<String> = ["を", "が", "は", "に", "で", "と", "の", "も", "へ", "や", "ね", "よ", "か",
                                         "的", "了", "着", "过", "吗", "呢", "吧", "地", "得"]

    /// A break inside a word of an unspaced script: only when no line of whole words fits.
    static let insideWord = 30.0
    /// A line left waiting for its phrase: more than line balance can cost two lines (at most
    /// about 13 at 42 columns), less than `insideWord`, so `awkwardBreaks` does not count it.
    static let leavesPhraseOpen = 25.0
    /// A line starting with closing punctuation: never chosen while any other layout fits.
    static let forbidden = 1000.0
}
