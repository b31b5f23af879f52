import CapforgeCore
import Foundation

/// Timing to the picture (Netflix's shot-change rules): a cue's in-time within 12 frames of a
/// shot change moves onto it, and its out-time within 12 frames of one ends 2 frames before
/// it, unless that would break a harder rule (the cue's minimum duration or reading time, its
/// longest duration, the gap to its neighbour): then it stays, and the conflict is reported.
public struct ShotTiming: Sendable {
    /// Shot changes, milliseconds from the media's start, in order.
    public let changes: [Int]
    let rules: CueRules

    static let reachFrames = 12.0
    static let endLeadFrames = 2.0

    public init(changes seconds: [Double], rules: CueRules) {
        // Read back from a cache a folder may hold anything in: only times a video can have.
        changes = seconds.filter { (0...Timecode.limitSeconds).contains($0) }.map { Int(($0 * 1000).rounded()) }.sorted()
        self.rules = rules
    }

    private var frame: Double { 1000 / rules.timing.framesPerSecond }
    private var reach: Int { Int((Self.reachFrames * frame).rounded()) }
    private var endLead: Int { Int((Self.endLeadFrames * frame).rounded()) }
    /// Within half a frame counts as on the frame.
    private var onFrame: Int { Int((frame / 2).rounded(.down)) }

    /// The change nearest `time` within 12 frames either side.
    func nearest(_ time: Int) -> Int? {
        let after = partitionPoint(changes) { $0 >= time }
        return [after - 1, after].filter { changes.indices.contains($0) }.map { changes[$0] }
            .filter { abs($0 - time) <= reach }.min { abs($0 - time) < abs($1 - time) }
    }

    /// The cues timed to the changes, and each move a harder rule forbade.
    func apply(_ input: [Cue]) -> (cues: [Cue], kept: [CueSplit]) {
        var cues = input
        var kept: [CueSplit] = []
        func keep(_ index: Int, _ time: Int, _ what: String, _ why: String) {
            kept.append(CueSplit(reason: .shotChange, cue: index + 1, time: time, message: "\(what) \(ClockTime.tenths(Double(time) / 1000)): kept, \(why)"))
        }
        let gap = rules.timing.chainedGap
        for index in cues.indices {
            let required = rules.requiredDuration(lines: cues[index].lines)
            if let change = nearest(cues[index].start), abs(change - cues[index].start) > onFrame {
                let previousEnd = index > 0 ? cues[index - 1].end : nil
                if cues[index].end - change < required {
                    keep(index, change, "starts \(frames(change - cues[index].start)) the shot change at", "starting there would leave it \(cues[index].end - change) ms, under the \(required) ms it needs")
                } else if previousEnd.map({ change - $0 >= gap }) ?? true {
                    cues[index].start = change
                } else if index > 0, change - gap - cues[index - 1].start >= rules.requiredDuration(lines: cues[index - 1].lines) {
                    // The cue before ends 2 frames before the change too: the two chain across the cut.
                    cues[index - 1].end = change - gap
                    cues[index].start = change
                } else {
                    keep(index, change, "starts \(frames(change - cues[index].start)) the shot change at", "the cue before needs its time up to \(ClockTime.tenths(Double(previousEnd ?? 0) / 1000))")
                }
            }
        }
        // Out-times after every in-time has moved: an end makes way for the next cue's new start.
        for index in cues.indices {
            let required = rules.requiredDuration(lines: cues[index].lines)
            if let change = nearest(cues[index].end), abs(change - endLead - cues[index].end) > onFrame {
                // Two frames, or the profile's gap where that is more (the next cue may start on the change).
                let end = change - max(endLead, gap)
                let nextStart = index + 1 < cues.count ? cues[index + 1].start : Int.max
                let duration = end - cues[index].start
                if duration < required {
                    keep(index, change, "ends \(frames(change - cues[index].end)) the shot change at", "ending 2 frames before it would leave it \(duration) ms, under the \(required) ms it needs")
                } else if duration > rules.longestDuration {
                    keep(index, change, "ends \(frames(change - cues[index].end)) the shot change at", "ending 2 frames before it would show it longer than \(rules.longestDuration) ms")
                } else if end > nextStart - gap {
                    keep(index, change, "ends \(frames(change - cues[index].end)) the shot change at", "the next cue starts at \(ClockTime.tenths(Double(nextStart) / 1000))")
                } else {
                    cues[index].end = end
                }
            }
        }
        return (cues, kept)
    }

    /// How a cue breaks the rule: it starts, or ends, 1 to 11 frames from a shot change (an
    /// end 2 frames before one is the rule itself). For lint.
    public func problems(_ cue: Cue) -> [String] {
        var found: [String] = []
        if let change = nearest(cue.start), abs(change - cue.start) > onFrame, abs(change - cue.start) < reach - onFrame {
            found.append("starts \(frames(change - cue.start)) the shot change at \(ClockTime.tenths(Double(change) / 1000)); start on it")
        }
        if let change = nearest(cue.end), abs(change - cue.end) > onFrame, abs(change - cue.end) < reach - onFrame, abs(change - endLead - cue.end) > onFrame {
            found.append("ends \(frames(change - cue.end)) the shot change at \(ClockTime.tenths(Double(change) / 1000)); end 2 frames before it")
        }
        return found
    }

    /// "3 frames before" / "5 frames after" (the change against the time).
    private func frames(_ offset: Int) -> String {
        let count = Int((Double(abs(offset)) / frame).rounded())
        return "\(count) frame\(count == 1 ? "" : "s") \(offset > 0 ? "before" : "after")"
    }
}
