import CapforgeCore
import Foundation

/// One finished chunk, as the journal stores it.
public struct JournalEntry: Sendable, Equatable, Codable {
    public var chunk: PlannedChunk
    public var record: ChunkRecord
    public var words: [Word]
    /// The chunk's doubted stretches and how arbitration settled them.
    public var verdicts: [ArbitrationVerdict]
    /// Where the engine stopped listening, when before the chunk's end: the next chunk hears on
    /// from there (its planned overlap, or with `--one-pass` a window opened near there).
    public var heardUntil: Double?
    /// Where the engine looped and cut what the audio did not back.
    public var loopCuts: [LoopCut]
    /// Words the engine itself left out, and why.
    public var droppedWords: [DroppedWord]
    /// How the engine's windows were decoded when beam search was asked for.
    public var beam: BeamTally?

    public init(chunk: PlannedChunk, record: ChunkRecord, words: [Word], verdicts: [ArbitrationVerdict] = [], heardUntil: Double? = nil,
                loopCuts: [LoopCut] = [], droppedWords: [DroppedWord] = [], beam: BeamTally? = nil) {
        self.chunk = chunk
        self.record = record
        self.words = words
        self.verdicts = verdicts
        self.heardUntil = heardUntil
        self.loopCuts = loopCuts
        self.droppedWords = droppedWords
        self.beam = beam
    }

    private enum CodingKeys: String, CodingKey { case chunk, record, words, verdicts, heardUntil, loopCuts, droppedWords, beam }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(chunk: try container.decode(PlannedChunk.self, forKey: .chunk), record: try container.decode(ChunkRecord.self, forKey: .record),
                  words: try container.decode([Word].self, forKey: .words), verdicts: try container.decode([ArbitrationVerdict].self, forKey: .verdicts),
                  heardUntil: try container.decodeIfPresent(Double.self, forKey: .heardUntil),
                  // A journal written before loops or an engine's own drops were recorded has none.
                  loopCuts: try container.decodeIfPresent([LoopCut].self, forKey: .loopCuts) ?? [],
                  droppedWords: try container.decodeIfPresent([DroppedWord].self, forKey: .droppedWords) ?? [],
                  beam: try container.decodeIfPresent(BeamTally.self, forKey: .beam))
    }

    /// Where the words of this chunk end and the next chunk may begin.
    public var heardEnd: Double { heardUntil ?? chunk.end }

    /// Whether an entry read back (from a journal that may be damaged or planted) holds what a
    /// run records: words in order within a timeline, confidences within 0...1.
    var isPlausible: Bool {
        let all: [Word] = words + droppedWords.map(\.word) + verdicts.flatMap { $0.modern + $0.rival }
        var spans: [(Double, Double)] = all.map { ($0.start, $0.end) } + loopCuts.map { ($0.start, $0.end) }
        spans += verdicts.map { ($0.start, $0.end) } + [(record.start, record.end)]
        let confidences: [Double] = all.flatMap { [$0.confidence, $0.calibratedConfidence ?? 0] }
        return spans.allSatisfy { MediaTime.isPlausible(seconds: $0.0) && MediaTime.isPlausible(seconds: $0.1) && $0.0 <= $0.1 }
            && confidences.allSatisfy { $0 >= 0 && $0 <= 1 } && (heardUntil.map(MediaTime.isPlausible(seconds:)) ?? true)
    }
}

/// Append-only record of finished chunks, made durable (fsync) one line at a time, so an
/// interrupted run resumes after its last finished chunk.
///
/// The first line holds a key for the audio and settings; a journal with another key is
/// discarded, and a torn last line (the process died while writing it) is ignored.
public final class TranscriptionJournal {
    public let folder: StateFolder
    public let name: String
    public let key: String
    public private(set) var entries: [JournalEntry] = []
    private var fd: Int32 = -1

    private struct Header: Codable { var journal: Int; var key: String }

    /// Far above what a run journals (a ten-hour file's words are a few tens of MB).
    static let sizeLimit = 512 << 20

    public init(folder: StateFolder, name: String, key: String) throws {
        self.folder = folder
        self.name = name
        self.key = key
        entries = Self.load(folder: folder, name: name, key: key)
        try rewrite()
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    public var url: URL { folder.url(of: name) }

    /// Entries of a previous run, by chunk index.
    public var finished: [Int: JournalEntry] {
        Dictionary(entries.map { ($0.chunk.index, $0) }, uniquingKeysWith: { _, last in last })
    }

    public func append(_ entry: JournalEntry) throws {
        var line = try JSONEncoder().encode(entry)
        line.append(0x0A)
        try write(line)
        entries.append(entry)
    }

    /// Removes the journal once its transcript has been written out.
    public func discard() {
        if fd >= 0 { close(fd); fd = -1 }
        folder.remove(name)
    }

    /// Starts the file afresh with the header and the entries still valid, dropping any torn
    /// tail so later appends begin on a clean line; kept open, so appends go to that file.
    private func rewrite() throws {
        let encoder = JSONEncoder()
        var data = try encoder.encode(Header(journal: 1, key: key)) + Data([0x0A])
        for entry in entries { data += try encoder.encode(entry) + Data([0x0A]) }
        fd = try folder.writeKeepingOpen(data, to: name)
    }

    private func write(_ data: Data) throws {
        try data.withUnsafeBytes { try AtomicFile.writeAll($0, to: fd, path: url.path) }
        guard fsync(fd) == 0 else { throw AtomicFile.makeError(path: url.path, errno: errno) }
    }

    /// The entries that can be resumed: under the same key, up to the first torn, unreadable or
    /// implausible line (what a planted or damaged journal holds is heard again instead).
    private static func load(folder: StateFolder, name: String, key: String) -> [JournalEntry] {
        guard let data = try? folder.read(name, limit: sizeLimit) else { return [] }
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: true)
        guard let first = lines.first, let header = try? JSONDecoder().decode(Header.self, from: Data(first)), header.key == key else { return [] }
        var entries: [JournalEntry] = []
        for line in lines.dropFirst() {
            guard let entry = try? JSONDecoder().decode(JournalEntry.self, from: Data(line)), entry.isPlausible else { break }
            entries.append(entry)
        }
        return entries
    }
}
