import Foundation

/// What a container's duration is worth. A header can claim anything (a patched Matroska
/// Duration says 48 hours over 3 s of audio), so a claim the streams' own lengths do not bear out
/// is checked against where the file's last packet ends.
public struct DurationClaim: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The container's duration in seconds; nil when it states none.
    public var claimed: Double?
    /// Where the claim puts the file's end on its timeline (a duration may count from zero rather
    /// than from the start offset): the reading the streams' lengths or the last packet bear out,
    /// else the smaller one (which never calls a whole file cut); nil when contradicted.
    public var claimedEnd: Double?
    /// Where the last packet in the file ends, in seconds on the file's timeline; nil when the
    /// claim was borne out by the streams (nothing to look for) or the file could not be searched.
    public var lastPacketEnd: Double?
    /// The streams' own lengths (track headers, Matroska DURATION tags) end where the last
    /// packet does: only the container's header is wrong, the file is whole.
    public var streamsAgree: Bool

    /// A claim and a last packet this far apart disagree (a frame or a muxer's rounding is not).
    static func tolerance(_ seconds: Double) -> Double { max(2, 0.05 * seconds) }

    /// The last packet ends far from every reading of the claim.
    public var isContradicted: Bool { claimedEnd == nil && claimed != nil && lastPacketEnd != nil }

    /// The duration estimates and summaries use: the last packet's end where it contradicts the claim.
    public var duration: Double? { isContradicted ? lastPacketEnd : claimedEnd }

    public var description: String {
        guard isContradicted, let claimed, let end = lastPacketEnd else { return "" }
        let head = "the container's header claims a duration of \(Self.clock(claimed)), but "
        if end > claimed {
            return head + "its packets run on to \(Self.clock(end)): the header's duration is wrong, and \(Self.clock(end)) is used"
        }
        if streamsAgree {
            return head + "its streams' own lengths and its last packet end at \(Self.clock(end)): the header's duration is wrong "
                + "(the file is whole), and \(Self.clock(end)) is used"
        }
        return head + "its last packet ends at \(Self.clock(end)): the file is truncated or its header's duration is wrong; "
            + "\(Self.clock(end)) (what the file holds) is used"
    }

    /// "3.06 s", or "48:00:00 (172800 s)" past a minute.
    static func clock(_ seconds: Double) -> String {
        guard seconds >= 60, seconds < 1e12 else { return String(format: "%.2f s", seconds) }
        let whole = Int(seconds)
        return String(format: "%d:%02d:%02d (%.0f s)", whole / 3600, whole / 60 % 60, whole % 60, seconds)
    }
}
