import CapforgeCore
import CFFmpeg

/// An input's packets in the order the demuxer reads them: the one way Media and Burn read a
/// file. One `Packet` is lent at a time and unreferenced when the next is read, so a packet is
/// used before the next is asked for, never kept. A read error mid-file ends the sequence like
/// the end of the file: readers compare how far they got with `InputFile.expectedEnd`.
package struct PacketSequence: Sequence, IteratorProtocol {
    private let input: InputFile
    private let packet = Packet()

    init(_ input: InputFile) {
        self.input = input
    }

    package mutating func next() -> Packet? {
        packet.unref()
        return av_read_frame(input.context, packet.pointer) >= 0 ? packet : nil
    }
}

extension InputFile {
    /// Reads on from where the file stands (its start, unless it was sought).
    package var packets: PacketSequence { PacketSequence(self) }

    /// Decodes stream `index` with `decoder` to the end of the file, the frames the decoder holds
    /// back flushed out after the last packet: the demux-and-decode loop of audio extraction,
    /// burn-in and shot detection. Each frame goes to `take` (unreferenced after it), each
    /// packet of another stream to `otherStream`; `packetDecoded` runs after each packet's
    /// frames. Returns how many packets and frames the decoder rejected as corrupt.
    package func decode(
        stream index: Int, with decoder: Decoder, cancellation: Cancellation?, otherStream: (Packet) throws -> Void = { _ in },
        packetDecoded: () -> Void = {}, frame take: (Frame) throws -> Void
    ) throws -> Int {
        let frame = Frame()
        var corrupt = 0
        func drain() throws {
            while true {
                switch try decoder.receive(into: frame) {
                case .frame:
                    defer { frame.unref() }
                    try take(frame)
                case .corrupt: corrupt += 1
                case .needInput, .finished: return
                }
            }
        }
        for packet in packets {
            if cancellation?.isCancelled == true { throw Cancelled() }
            guard packet.streamIndex == index else {
                try otherStream(packet)
                continue
            }
            if try !decoder.send(packet) {
                corrupt += 1
                continue
            }
            try drain()
            packetDecoded()
        }
        _ = try decoder.send(nil)
        try drain()
        return corrupt
    }
}
