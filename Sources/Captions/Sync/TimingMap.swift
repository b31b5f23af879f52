/// How a subtitle file's clock maps onto the media's: media = rate × subtitles + offset, the
/// offset changing at splits (a stretch cut from one copy, or added to it, and not the other).
public struct TimingMap: Codable, Sendable, Equatable {
    public struct Segment: Codable, Sendable, Equatable {
        /// Subtitle time (milliseconds) from which this segment's offset applies.
        public var from: Int
        /// Milliseconds added after scaling.
        public var offset: Int
    }

    public var rate: Double
    /// The frame-rate conversion the rate is ("25/23.976": subtitles timed for 25 fps on a
    /// 23.976 fps copy); nil for 1.
    public var rateName: String?
    /// In subtitle time order; the first starts at `Int.min`.
    public var segments: [Segment]

    /// `milliseconds` of subtitle time on the media's clock, by segment `index`'s offset.
    public func map(_ milliseconds: Int, segment index: Int) -> Int {
        Int((rate * Double(milliseconds)).rounded()) + segments[index].offset
    }

    /// The candidate rates: 1 and the conversions that change running time: film played at
    /// PAL's 25 fps (and back) and NTSC's 1000/1001 slow-down. Film to 29.97 by pulldown repeats
    /// fields and keeps the time, so 24 ↔ 29.97 is not one.
    static let frameRateFamilies: [[(name: String, value: Double)]] = [
        [("23.976", 24000.0 / 1001), ("24", 24), ("25", 25)],
        [("29.97", 30000.0 / 1001), ("30", 30)],
    ]

    static let candidateRates: [(name: String?, rate: Double)] = [(nil, 1)] + frameRateFamilies.flatMap { family in
        family.flatMap { from in family.compactMap { to in from.name == to.name ? nil : ("\(from.name)/\(to.name)", from.value / to.value) } }
    }

    public var description: String {
        let rate = rateName.map { String(format: "rate %@ (×%.5f)", $0, self.rate) } ?? "no drift"
        let offsets = segments.enumerated().map { index, segment in
            let shift = String(format: "%+.3f s", Double(segment.offset) / 1000)
            return index == 0 ? "offset \(shift)" : "from \(Timecode.milliseconds(segment.from, mark: ".")) \(shift)"
        }
        return ([rate] + offsets).joined(separator: ", ")
    }
}
