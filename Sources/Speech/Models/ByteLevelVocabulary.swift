import Foundation

/// The GPT-2 byte-level BPE tokens of a CT2 `vocabulary.txt`, turned back into raw bytes.
enum ByteLevelVocabulary {
    static let endOfText = "<|endoftext|>"

    /// The BPE tokens below `<|endoftext|>`; whisper.cpp synthesises the special and timestamp
    /// tokens itself. Lines are split on the byte 0x0A only: Swift's String would merge a
    /// token ending in "\r" with its line break into one Character and shift every later id.
    /// More than `limit` tokens (the model's embedding rows) is an error; the file is split no
    /// further, so a file of line breaks cannot become millions of lines.
    static func tokens(fromVocabularyFile data: Data, path: String, atMost limit: Int) throws -> [[UInt8]] {
        let lines = data.split(separator: 0x0A, maxSplits: limit, omittingEmptySubsequences: false)
        guard let end = lines.firstIndex(where: { $0.elementsEqual(endOfText.utf8) }) else {
            throw ModelImportError.malformed(path: path, reason: "no \(endOfText) token among its first \(limit) lines (the model has \(limit) token embeddings)")
        }
        return try lines[..<end].enumerated().map { id, line in
            try String(decoding: line, as: UTF8.self).unicodeScalars.map { scalar in
                guard let byte = byteForScalar[scalar.value] else {
                    throw ModelImportError.malformed(path: path, reason: "token \(id) has a character outside the byte-level alphabet")
                }
                return byte
            }
        }
    }

    /// GPT-2's `bytes_to_unicode`, inverted: printable bytes stand for themselves, the other 68
    /// bytes were moved to U+0100 onwards in byte order.
    private static let byteForScalar: [UInt32: UInt8] = {
        let printable = Set(Array(0x21...0x7E) + Array(0xA1...0xAC) + Array(0xAE...0xFF))
        var map: [UInt32: UInt8] = [:]
        var shifted: UInt32 = 0x100
        for byte in 0...255 {
            if printable.contains(byte) {
                map[UInt32(byte)] = UInt8(byte)
            } else {
                map[shifted] = UInt8(byte)
                shifted += 1
            }
        }
        return map
    }()
}
