import Foundation

/// A TTML document's timing parameters (`ttp:` attributes of its root) and its time
/// expressions: clock time (`00:01:02.5`, `00:01:02:12` frames, `00:01:02:12.1` sub-frames) and
/// offset time (`62.5s`, `1500ms`, `90f`, `600t` ticks, `1h`, `2m`), read and written back in the
/// form they came in.
struct TTMLClock: Sendable {
    /// How a time was written, so a new time is written the same way.
    enum Form: Sendable, Equatable {
        case clock
        case clockFrames(subFrames: Bool)
        case offset(Metric)
    }

    enum Metric: String, Sendable, CaseIterable {
        // Longest first: "ms" must not be read as "s".
        case milliseconds = "ms", hours = "h", minutes = "m", seconds = "s", frames = "f", ticks = "t"
    }

    /// The parameter namespaces of TTML and of DFXP before it.
    static let parameterNamespaces: Set<String> = [
        "http://www.w3.org/ns/ttml#parameter", "http://www.w3.org/2006/10/ttaf1#parameter", "http://www.w3.org/2006/04/ttaf1#parameter",
    ]

    /// Frames per second as labelled (the integer of `ttp:frameRate`).
    private(set) var frameRate = 30.0
    /// Frames per second in media time (`ttp:frameRateMultiplier` applied).
    private(set) var effectiveFrameRate = 30.0
    private(set) var subFrameRate = 1.0
    private(set) var tickRate = 1.0
    /// `ttp:timeBase="smpte"`: clock times with frames are labels counted at `frameRate`.
    private(set) var smpte = false
    /// What the parameters said that was not used, and what was used instead.
    private(set) var warnings: [String] = []

    init() {}

    /// The parameters among the root's attributes, by their local name where their prefix is
    /// bound (`namespace`) to a TTML parameter namespace. What is out of range is said and left
    /// at TTML's default; what cannot be read right (times of day, drop-frame labels) is refused.
    init(root attributes: [XMLScanner.Attribute], namespace: (String) -> String?, line: Int) throws {
        var parameters: [String: String] = [:]
        for attribute in attributes {
            guard let colon = attribute.name.firstIndex(of: ":") else { continue }
            let prefix = String(attribute.name[..<colon]), local = String(attribute.name[attribute.name.index(after: colon)...])
            guard Self.parameterNamespaces.contains(namespace(prefix) ?? "") else { continue }
            parameters[local] = attribute.value.trimmingCharacters(in: .whitespaces)
        }
        if let base = parameters["timeBase"] {
            switch base {
            case "media": break
            case "smpte": smpte = true
            default:
                throw SubtitleReadError.malformedEvent(line: line, reason: "ttp:timeBase=\(TTMLDocument.shown(base)) times are times of day, not times in the video; only media and smpte time bases are read")
            }
        }
        if let mode = parameters["dropMode"], mode != "nonDrop", smpte {
            throw SubtitleReadError.malformedEvent(line: line, reason: "drop-frame time codes (ttp:dropMode=\(TTMLDocument.shown(mode))) are not read; give the times in media time")
        }
        if let text = parameters["frameRate"] {
            if let rate = Self.count(text, within: 1...1000) {
                frameRate = rate
                effectiveFrameRate = rate
            } else {
                warnings.append("ttp:frameRate \(TTMLDocument.shown(text)) is not a whole number of frames per second from 1 to 1000: frames are counted at 30 per second")
            }
        }
        if let text = parameters["frameRateMultiplier"] {
            let parts = text.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count == 2, let numerator = Self.count(String(parts[0]), within: 1...1_000_000),
               let denominator = Self.count(String(parts[1]), within: 1...1_000_000), (1...1000).contains(frameRate * numerator / denominator) {
                effectiveFrameRate = frameRate * numerator / denominator
            } else {
                warnings.append("ttp:frameRateMultiplier \(TTMLDocument.shown(text)) is not two whole numbers giving 1 to 1000 frames per second: ignored")
            }
        }
        if let text = parameters["subFrameRate"] {
            if let rate = Self.count(text, within: 1...1000) { subFrameRate = rate } else {
                warnings.append("ttp:subFrameRate \(TTMLDocument.shown(text)) is not a whole number from 1 to 1000: ignored")
            }
        }
        // TTML's default: one tick a sub-frame where a frame rate is given, else one a second.
        tickRate = parameters["frameRate"] == nil ? 1 : effectiveFrameRate * subFrameRate
        if let text = parameters["tickRate"] {
            if let rate = Self.count(text, within: 1...1e12) { tickRate = rate } else {
                warnings.append("ttp:tickRate \(TTMLDocument.shown(text)) is not a whole number of ticks per second from 1 to 10^12: ticks are counted at \(String(format: "%g", tickRate)) per second")
            }
        }
    }

    /// A whole number of ASCII digits within `range`.
    private static func count(_ text: String, within range: ClosedRange<Double>) -> Double? {
        guard !text.isEmpty, text.count <= 20, text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Double(text), range.contains(value) else { return nil }
        return value
    }

    /// Seconds (finite, not negative) and the form of a time expression; nil when `text` is none.
    func time(_ text: String) -> (seconds: Double, form: Form)? {
        // A value may be spread over lines (XML turns those breaks into spaces).
        let value = text.utf8.contains(where: { [0x20, 0x09, 0x0A, 0x0D].contains($0) }) ? text.trimmingCharacters(in: .whitespacesAndNewlines) : text
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 3 || parts.count == 4 {
            guard let hours = Self.digits(parts[0], upTo: 12), let minutes = Self.digits(parts[1], upTo: 2), minutes < 60 else { return nil }
            if parts.count == 3 {
                guard let seconds = Self.decimal(parts[2], wholeDigits: 2), seconds < 61 else { return nil }
                return (hours * 3600 + minutes * 60 + seconds, .clock)
            }
            guard let seconds = Self.digits(parts[2], upTo: 2), seconds < 61 else { return nil }
            let frameParts = parts[3].split(separator: ".", omittingEmptySubsequences: false)
            guard frameParts.count <= 2, let frames = Self.digits(frameParts[0], upTo: 12) else { return nil }
            var subFrames = 0.0
            if frameParts.count == 2 {
                guard let value = Self.digits(frameParts[1], upTo: 12) else { return nil }
                subFrames = value
            }
            let frameCount = frames + subFrames / subFrameRate
            // SMPTE labels count whole seconds of `frameRate` frames; media time counts real seconds.
            let total = smpte ? ((hours * 3600 + minutes * 60 + seconds) * frameRate + frameCount) / effectiveFrameRate
                : hours * 3600 + minutes * 60 + seconds + frameCount / effectiveFrameRate
            return (total, .clockFrames(subFrames: frameParts.count == 2))
        }
        guard let metric = Metric.allCases.first(where: { value.hasSuffix($0.rawValue) }),
              let number = Self.decimal(value.dropLast(metric.rawValue.count), wholeDigits: nil) else { return nil }
        return (number / perSecond(metric), .offset(metric))
    }

    /// How many of a metric's units make a second.
    private func perSecond(_ metric: Metric) -> Double {
        switch metric {
        case .hours: 1.0 / 3600
        case .minutes: 1.0 / 60
        case .seconds: 1
        case .milliseconds: 1000
        case .frames: effectiveFrameRate
        case .ticks: tickRate
        }
    }

    /// `milliseconds` written in `form`: a whole number of the form's unit (frames, ticks,
    /// milliseconds), or as many decimals as keep the millisecond.
    func text(_ milliseconds: Int, form: Form) -> String {
        let ms = max(0, milliseconds)
        let seconds = Double(ms) / 1000
        switch form {
        case .clock:
            return TTMLWriter.time(ms)
        case .clockFrames(let withSubFrames):
            let perFrame = withSubFrames ? Int(subFrameRate) : 1
            let perLabelledSecond = Int(frameRate) * perFrame
            var whole: Int, units: Int
            if smpte {
                // Labels count `frameRate` frames a second, whatever the multiplier makes of them.
                (whole, units) = Int((seconds * effectiveFrameRate * Double(perFrame)).rounded()).quotientAndRemainder(dividingBy: perLabelledSecond)
            } else {
                whole = ms / 1000
                units = Int((Double(ms % 1000) / 1000 * effectiveFrameRate * Double(perFrame)).rounded())
                // A frame past the last of the second is the next second's first.
                if units >= perLabelledSecond { (whole, units) = (whole + 1, 0) }
            }
            let clock = Self.pad(whole / 3600) + ":" + Self.pad(whole / 60 % 60) + ":" + Self.pad(whole % 60)
            return clock + ":" + Self.pad(units / perFrame) + (withSubFrames ? ".\(units % perFrame)" : "")
        case .offset(let metric):
            switch metric {
            case .milliseconds: return "\(ms)ms"
            case .frames, .ticks: return "\(Int((seconds * perSecond(metric)).rounded()))\(metric.rawValue)"
            case .seconds: return Self.decimals(seconds, places: 3) + "s"
            case .minutes: return Self.decimals(seconds / 60, places: 5) + "m"
            case .hours: return Self.decimals(seconds / 3600, places: 7) + "h"
            }
        }
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }

    /// `value` with at most `places` decimals, trailing zeros dropped.
    private static func decimals(_ value: Double, places: Int) -> String {
        var text = String(format: "%.\(places)f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Digits only (no sign, exponent or space), at most `upTo` of them.
    private static func digits(_ text: Substring, upTo limit: Int) -> Double? {
        guard !text.isEmpty, text.utf8.count <= limit, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Double(text)
    }

    /// `digits[.digits]`, the whole part `wholeDigits` long at most when given.
    private static func decimal(_ text: Substring, wholeDigits: Int?) -> Double? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, digits(parts[0], upTo: wholeDigits ?? 15) != nil, parts.count == 1 || digits(parts[1], upTo: 15) != nil else { return nil }
        return Double(text)
    }
}
