import Foundation

/// Hand-written GNU-style argument parsing: `--name value`, `--name=value`, `-n value`,
/// bundled-free short flags, `--` ends options, unknown options get a suggestion. Each option is
/// declared once, with what it takes (checked as the arguments are parsed), its default and its
/// help; `--help` is printed from the declarations.
public struct Option: Sendable {
    /// What an option takes.
    public enum Value: Sendable, Equatable {
        case flag
        /// Any text; `name` shows it in help ("DIR").
        case text(name: String)
        /// One of these words.
        case choice([String])
        case integer(ClosedRange<Int>, name: String)
        /// A finite number in the range; `aboveLowerBound`: the bound itself is not.
        case number(ClosedRange<Double>, name: String, aboveLowerBound: Bool)
    }

    public let name: String
    public let short: Character?
    public let value: Value
    public let help: String
    public let repeatable: Bool
    /// The value when the option is not given, where help states it.
    public let defaultValue: String?
    /// What a value the option refuses is said to need; nil: said from `value`.
    let need: String?

    /// A flag, or an option taking any text when `valueName` is given.
    public init(_ name: String, short: Character? = nil, value valueName: String? = nil, repeatable: Bool = false, default defaultValue: String? = nil,
                help: String) {
        self.init(name, short: short, value: valueName.map { .text(name: $0) } ?? .flag, repeatable: repeatable, default: defaultValue, need: nil, help: help)
    }

    public init(_ name: String, short: Character? = nil, value: Value, repeatable: Bool = false, default defaultValue: String? = nil, need: String? = nil,
                help: String) {
        self.name = name
        self.short = short
        self.value = value
        self.repeatable = repeatable
        self.defaultValue = defaultValue
        self.need = need
        self.help = help
    }

    var takesValue: Bool { value != .flag }

    /// This option with `shown` as the default help states.
    func defaulting(to shown: String) -> Option {
        Option(name, short: short, value: value, repeatable: repeatable, default: shown, need: need, help: help)
    }

    /// How help names the value ("N", "auto|modern|basic"); nil for a flag.
    var valueName: String? {
        switch value {
        case .flag: return nil
        case .text(let name), .integer(_, let name), .number(_, let name, _): return name
        case .choice(let words): return words.joined(separator: "|")
        }
    }

    /// The help line: what the option does, then its range and default.
    var helpLine: String {
        var facts: [String] = []
        switch value {
        case .integer(let range, _) where range.upperBound < Int.max: facts.append("\(range.lowerBound)-\(range.upperBound)")
        case .number(let range, _, let above) where range.upperBound < .greatestFiniteMagnitude:
            facts.append(above ? "above \(Self.shown(range.lowerBound)), at most \(Self.shown(range.upperBound))"
                               : "\(Self.shown(range.lowerBound))-\(Self.shown(range.upperBound))")
        default: break
        }
        if let defaultValue { facts.append("default \(defaultValue)") }
        return facts.isEmpty ? help : help + " (" + facts.joined(separator: "; ") + ")"
    }

    /// Why `text` is not a value of this option; nil when it is one.
    func refusal(of text: String) -> String? {
        switch value {
        case .flag, .text: return nil
        case .choice(let words):
            return words.contains(text) ? nil : need ?? "use " + Self.listed(words)
        case .integer(let range, _):
            guard let number = Int(text), range.contains(number) else { return need ?? "a whole number from \(range.lowerBound) to \(range.upperBound)" }
            return nil
        case .number(let range, _, let above):
            guard let number = Double(text), number.isFinite, range.contains(number), !(above && number == range.lowerBound) else {
                return need ?? (above ? "a number above \(Self.shown(range.lowerBound)) and at most \(Self.shown(range.upperBound))"
                                      : "a number from \(Self.shown(range.lowerBound)) to \(Self.shown(range.upperBound))")
            }
            return nil
        }
    }

    /// "a, b or c".
    static func listed(_ words: [String]) -> String {
        words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words.last!
    }

    /// 1, 0.5, 1000: a bound as people write it.
    public static func shown(_ number: Double) -> String { String(format: "%g", number) }
}

public struct Command: Sendable {
    public let name: String
    public let summary: String
    /// e.g. "FILE [--json]"
    public let usage: String
    public let options: [Option]
    public let minPositionals: Int
    public let maxPositionals: Int?

    public init(_ name: String, summary: String, usage: String, options: [Option], positionals: ClosedRange<Int>) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.options = options + [Option("help", short: "h", help: "show this help")]
        minPositionals = positionals.lowerBound
        maxPositionals = positionals.upperBound == Int.max ? nil : positionals.upperBound
    }

    public init(_ name: String, summary: String, usage: String, options: [Option], minPositionals: Int) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.options = options + [Option("help", short: "h", help: "show this help")]
        self.minPositionals = minPositionals
        maxPositionals = nil
    }

    public func helpText(program: String) -> String {
        var lines = ["Usage: \(program) \(name) \(usage)", "", summary]
        if !options.isEmpty {
            lines.append("")
            lines.append("Options:")
            let labels = options.map { option -> String in
                let short = option.short.map { "-\($0), " } ?? "    "
                return "  \(short)--\(option.name)\(option.valueName.map { " \($0)" } ?? "")"
            }
            let width = (labels.map(\.count).max() ?? 0) + 2
            for (label, option) in zip(labels, options) {
                lines.append(label.padding(toLength: width, withPad: " ", startingAt: 0) + option.helpLine)
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension Command {
    /// This command as a section of a man page (roff), from the same declarations as `helpText`.
    public func manSection(program: String) -> String {
        var lines = [".SS \(Self.roff(name))", ".B \(Self.roff(program)) \(Self.roff(name))", Self.roff(usage), ".PP", Self.roff(summary)]
        for option in options {
            lines.append(".TP")
            let short = option.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
            lines.append(short + "\\fB\\-\\-\(Self.roff(option.name))\\fR" + (option.valueName.map { " \\fI\(Self.roff($0))\\fR" } ?? ""))
            lines.append(Self.roff(option.helpLine))
        }
        return lines.joined(separator: "\n")
    }

    /// Text made literal for roff: backslashes escaped, hyphens kept as hyphens, and a line that
    /// would start with a control character guarded.
    public static func roff(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }
}

public struct ParsedArguments: Sendable, Equatable {
    public var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    /// Read by name only by a command's `OptionTable`, which decodes them into typed options.
    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { values[name]?.last }
    func values(_ name: String) -> [String] { values[name] ?? [] }
    public var wantsHelp: Bool { flags.contains("help") }
}

public enum UsageError: Error, Equatable, CustomStringConvertible {
    case unknownOption(String, suggestion: String?)
    case missingValue(String)
    case unexpectedValue(String)
    case repeated(String)
    case tooFewArguments(expected: Int, got: Int)
    case tooManyArguments(extra: [String])
    case invalidValue(option: String, value: String, reason: String)
    /// A flag this run cannot honour: `reason` completes "--option …".
    case unmet(option: String, reason: String)
    case unknownCommand(String, suggestion: String?)

    public var description: String {
        switch self {
        case .unknownOption(let opt, let suggestion):
            return "unknown option '\(opt)'" + (suggestion.map { "; did you mean '--\($0)'?" } ?? "")
        case .missingValue(let opt): return "option '--\(opt)' needs a value"
        case .unexpectedValue(let opt): return "option '--\(opt)' takes no value"
        case .repeated(let opt): return "option '--\(opt)' given more than once"
        case .tooFewArguments(let expected, let got): return "expected at least \(expected) argument(s), got \(got)"
        case .tooManyArguments(let extra): return "unexpected argument(s): \(extra.joined(separator: " "))"
        case .invalidValue(let opt, let value, let reason): return "invalid value '\(value)' for '--\(opt)': \(reason)"
        case .unmet(let opt, let reason): return "--\(opt) \(reason)"
        case .unknownCommand(let name, let suggestion):
            return "unknown command '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
        }
    }
}

public func parse(_ arguments: [String], for command: Command) throws -> ParsedArguments {
    var parsed = ParsedArguments()
    var index = 0
    func lookup(long: String) throws -> Option {
        if let option = command.options.first(where: { $0.name == long }) { return option }
        throw UsageError.unknownOption("--\(long)", suggestion: closest(to: long, among: command.options.map(\.name)))
    }
    func record(_ option: Option, inlineValue: String?) throws {
        if !option.takesValue {
            if inlineValue != nil { throw UsageError.unexpectedValue(option.name) }
            parsed.flags.insert(option.name)
            return
        }
        let value: String
        if let inlineValue {
            value = inlineValue
        } else {
            index += 1
            guard index < arguments.count else { throw UsageError.missingValue(option.name) }
            value = arguments[index]
        }
        if !option.repeatable, parsed.values[option.name] != nil { throw UsageError.repeated(option.name) }
        if let reason = option.refusal(of: value) { throw UsageError.invalidValue(option: option.name, value: value, reason: reason) }
        parsed.values[option.name, default: []].append(value)
    }

    var optionsEnded = false
    while index < arguments.count {
        let argument = arguments[index]
        if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
            parsed.positionals.append(argument)
        } else if argument == "--" {
            optionsEnded = true
        } else if argument.hasPrefix("--") {
            let body = argument.dropFirst(2)
            if let eq = body.firstIndex(of: "=") {
                try record(try lookup(long: String(body[..<eq])), inlineValue: String(body[body.index(after: eq)...]))
            } else {
                try record(try lookup(long: String(body)), inlineValue: nil)
            }
        } else {
            let letter = argument.dropFirst()
            guard letter.count == 1, let option = command.options.first(where: { $0.short == letter.first }) else {
                throw UsageError.unknownOption(argument, suggestion: nil)
            }
            try record(option, inlineValue: nil)
        }
        index += 1
    }
    if parsed.wantsHelp { return parsed }
    if parsed.positionals.count < command.minPositionals {
        throw UsageError.tooFewArguments(expected: command.minPositionals, got: parsed.positionals.count)
    }
    if let max = command.maxPositionals, parsed.positionals.count > max {
        throw UsageError.tooManyArguments(extra: Array(parsed.positionals[max...]))
    }
    return parsed
}

/// The candidate within a small edit distance of `word`, for "did you mean" hints.
public func closest(to word: String, among candidates: [String]) -> String? {
    let scored = candidates.map { ($0, editDistance(word, $0)) }.min { $0.1 < $1.1 }
    guard let (best, distance) = scored, distance <= max(2, word.count / 3) else { return nil }
    return best
}

func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    var previous = Array(0...b.count)
    for i in 1...max(1, a.count) where !a.isEmpty {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...max(1, b.count) where !b.isEmpty {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return a.isEmpty ? b.count : previous[b.count]
}
