/// A command's options, each declared once together with what it sets in `Options`: its name,
/// what it takes, its range and help, and its default read from `initial`, the value the
/// options start from. Decoding is the only place an option's value is looked up by name.
public struct OptionTable<Options: Sendable>: Sendable {
    /// One option and how a value of it (empty for a flag) sets the options.
    public struct Field: Sendable {
        let option: Option
        /// The default help states, from the options' initial value.
        let shownDefault: (@Sendable (Options) -> String)?
        let set: @Sendable (inout Options, String) throws -> Void

        /// An option whose values `set` applies in the order given; it throws `OptionRefusal`
        /// for a value it cannot take (a usage error naming the option), anything else as it is.
        public init(_ option: Option, shownDefault: (@Sendable (Options) -> String)? = nil, set: @escaping @Sendable (inout Options, String) throws -> Void) {
            self.option = option
            self.shownDefault = shownDefault
            self.set = set
        }
    }

    public let initial: Options
    public let fields: [Field]

    public init(initial: Options, _ fields: [Field]) {
        self.initial = initial
        self.fields = fields
    }

    public var options: [Option] {
        fields.map { field in field.shownDefault.map { field.option.defaulting(to: $0(initial)) } ?? field.option }
    }

    /// The options `parsed` gives, applied to `initial` in the table's order.
    public func decode(_ parsed: ParsedArguments) throws -> Options {
        var options = initial
        for field in fields {
            let name = field.option.name
            for value in field.option.takesValue ? parsed.values(name) : (parsed.flag(name) ? [""] : []) {
                do {
                    try field.set(&options, value)
                } catch let refusal as OptionRefusal {
                    throw UsageError.invalidValue(option: name, value: value, reason: refusal.reason)
                }
            }
        }
        return options
    }
}

/// Why an option's value cannot be taken; completes "invalid value 'V' for '--NAME': …".
public struct OptionRefusal: Error, Sendable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}

/// The shapes most options have, each bound to one field; the default help states is the
/// field's value in the table's `initial`.
extension OptionTable.Field {
    /// A flag that sets the field to `value` (false for a "--no-…" flag).
    public static func flag(_ name: String, short: Character? = nil, _ field: WritableKeyPath<Options, Bool> & Sendable, to value: Bool = true,
                            help: String) -> Self {
        Self(Option(name, short: short, help: help)) { options, _ in options[keyPath: field] = value }
    }

    public static func text(_ name: String, short: Character? = nil, _ field: WritableKeyPath<Options, String?> & Sendable, value: String, help: String) -> Self {
        Self(Option(name, short: short, value: value, help: help)) { options, text in options[keyPath: field] = text }
    }

    public static func text(_ name: String, _ field: WritableKeyPath<Options, String> & Sendable, value: String, help: String) -> Self {
        Self(Option(name, value: value, help: help), shownDefault: { $0[keyPath: field] }) { options, text in options[keyPath: field] = text }
    }

    public static func integer(_ name: String, short: Character? = nil, _ field: WritableKeyPath<Options, Int> & Sendable, _ range: ClosedRange<Int>,
                               value: String = "N", need: String? = nil, help: String) -> Self {
        Self(Option(name, short: short, value: .integer(range, name: value), need: need, help: help), shownDefault: { "\($0[keyPath: field])" }) { options, text in
            options[keyPath: field] = Int(text)!
        }
    }

    public static func integer(_ name: String, _ field: WritableKeyPath<Options, Int?> & Sendable, _ range: ClosedRange<Int>, value: String = "N",
                               need: String? = nil, help: String) -> Self {
        Self(Option(name, value: .integer(range, name: value), need: need, help: help)) { options, text in options[keyPath: field] = Int(text)! }
    }

    public static func number(_ name: String, _ field: WritableKeyPath<Options, Double> & Sendable, _ range: ClosedRange<Double>, value: String,
                              aboveLowerBound: Bool = false, help: String) -> Self {
        Self(Option(name, value: .number(range, name: value, aboveLowerBound: aboveLowerBound), help: help), shownDefault: { Option.shown($0[keyPath: field]) }) {
            options, text in options[keyPath: field] = Double(text)!
        }
    }

    public static func number(_ name: String, _ field: WritableKeyPath<Options, Double?> & Sendable, _ range: ClosedRange<Double>, value: String,
                              aboveLowerBound: Bool = false, help: String) -> Self {
        Self(Option(name, value: .number(range, name: value, aboveLowerBound: aboveLowerBound), help: help)) { options, text in
            options[keyPath: field] = Double(text)!
        }
    }

    public static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ field: WritableKeyPath<Options, Choice> & Sendable, help: String
    ) -> Self where Choice.RawValue == String {
        Self(Option(name, value: .choice(Choice.allCases.map(\.rawValue)), help: help), shownDefault: { $0[keyPath: field].rawValue }) { options, text in
            options[keyPath: field] = Choice(rawValue: text)!
        }
    }

    public static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ field: WritableKeyPath<Options, Choice?> & Sendable, default shown: String? = nil, help: String
    ) -> Self where Choice.RawValue == String {
        Self(Option(name, value: .choice(Choice.allCases.map(\.rawValue)), default: shown, help: help)) { options, text in
            options[keyPath: field] = Choice(rawValue: text)!
        }
    }

    /// An option whose text `parse` turns into the field's value (throwing `OptionRefusal`
    /// for text it cannot).
    public static func parsed<Value>(_ name: String, short: Character? = nil, _ field: WritableKeyPath<Options, Value> & Sendable, value: String,
                                     help: String, parse: @escaping @Sendable (String) throws -> Value) -> Self {
        Self(Option(name, short: short, value: value, help: help)) { options, text in options[keyPath: field] = try parse(text) }
    }

    /// These fields of `Part` setting `part` of the options (options shared by commands).
    public static func lifted<Part>(_ fields: [OptionTable<Part>.Field], into part: WritableKeyPath<Options, Part> & Sendable) -> [Self] {
        fields.map { field in
            var shown: (@Sendable (Options) -> String)?
            if let show = field.shownDefault { shown = { options in show(options[keyPath: part]) } }
            let set = field.set
            return Self(field.option, shownDefault: shown) { options, text in try set(&options[keyPath: part], text) }
        }
    }
}
