import CapforgeCore

enum SRTReader {
    static func cues(_ lines: [String]) throws -> [Cue] {
        try SubtitleReader.blocks(lines).map { start, block in try cue(block, line: start) }
    }

    /// The cue of one block, whose first line is line `start` of the file.
    static func cue(_ block: [String], line start: Int) throws -> Cue {
        let timingOffset = try SubtitleReader.timingOffset(block, line: start)
        let (from, to) = try SubtitleReader.timing(block[timingOffset], line: start + timingOffset)
        let text = block[(timingOffset + 1)...].map { SubtitleReader.stripTags($0).trimmingCharacters(in: .whitespaces) }
        return Cue(start: from, end: to, lines: text.filter { !$0.isEmpty })
    }
}
