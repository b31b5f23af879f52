import Foundation
import Testing
@testable import CapforgeCore

@Suite struct SortedSpoolTests {
    struct Item: Spoolable, Equatable {
        var key: Int
        var text: String

        init(key: Int, text: String) {
            self.key = key
            self.text = text
        }

        func spool(into writer: inout SpoolWriter) {
            writer.write(key)
            writer.write(text)
        }

        init(unspooling reader: inout SpoolReader) {
            key = reader.readInt()
            text = reader.readString()
        }
    }

    static func items(_ count: Int, keys: (Int) -> Int) -> [Item] {
        // Now and then a value longer than a run's read buffer, and text that is not ASCII.
        (0..<count).map { Item(key: keys($0), text: $0 % 997 == 0 ? String(repeating: "é", count: 6000) : "v\($0) ☃") }
    }

    /// In memory, and through the file in chunks of 64 bytes (a run each, or continuing the one
    /// before): the order of a stable sort, read back as often as asked, for keys that repeat, in
    /// order, reversed and none.
    @Test func readsBackWhatAStableSortGives() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let random = Self.items(5000) { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % 100
        }
        let inputs = [random, Self.items(3000) { $0 / 3 }, Self.items(3000) { -$0 }, []]
        for (input, chunkBytes) in inputs.flatMap({ input in [(input, 64), (input, 1 << 20)] }) {
            let spool = try SortedSpool<Item>(by: { $0.key < $1.key }, chunkBytes: chunkBytes) { add in try input.forEach(add) }
            let expected = input.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map(\.element)
            for _ in 0..<2 {
                var read: [Item] = []
                try spool.forEach { read.append($0) }
                #expect(read == expected, "\(input.count) values in chunks of \(chunkBytes) bytes")
            }
        }
    }
}
