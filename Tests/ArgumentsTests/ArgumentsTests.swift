import Testing
@testable import Arguments

@Suite struct ArgumentsTests {
    let command = Command(
        "caption", summary: "s", usage: "PATH...",
        options: [Option("lang", value: "CODE", help: "l"), Option("json", help: "j"), Option("jobs", short: "j", value: "N", help: "n"),
                  Option("formats", value: "LIST", repeatable: true, help: "f")],
        minPositionals: 1)

    @Test func longShortInlineAndEndOfOptions() throws {
        let p = try parse(["--lang", "en", "-j", "2", "--json", "a.mp4", "--", "--weird.mp4", "--formats=srt", ], for: command)
        #expect(p.value("lang") == "en")
        #expect(p.value("jobs") == "2")
        #expect(p.flag("json"))
        #expect(p.positionals == ["a.mp4", "--weird.mp4", "--formats=srt"])
        #expect(try parse(["--lang=ko", "x"], for: command).value("lang") == "ko")
    }

    @Test func errorsAreSpecific() {
        #expect(throws: UsageError.unknownOption("--lnag", suggestion: "lang")) { try parse(["--lnag", "en", "x"], for: command) }
        #expect(throws: UsageError.missingValue("lang")) { try parse(["x", "--lang"], for: command) }
        #expect(throws: UsageError.unexpectedValue("json")) { try parse(["x", "--json=1"], for: command) }
        #expect(throws: UsageError.repeated("lang")) { try parse(["x", "--lang", "a", "--lang", "b"], for: command) }
        #expect(throws: UsageError.tooFewArguments(expected: 1, got: 0)) { try parse([], for: command) }
    }

    /// A value an option refuses is a usage error as the arguments are parsed, naming the option,
    /// the value and what the option takes: a choice, a whole number in range, a finite number in range.
    @Test func valuesAreCheckedWhereTheyAreDeclared() throws {
        let typed = Command("caption", summary: "s", usage: "PATH...", options: [
            Option("tier", value: .choice(["auto", "modern", "basic"]), default: "auto", help: "t"),
            Option("beam", value: .integer(1...8, name: "N"), default: "1", help: "b"),
            Option("low", value: .number(0...1, name: "P", aboveLowerBound: false), help: "l"),
            Option("factor", value: .number(0...1000, name: "X", aboveLowerBound: true), help: "f"),
            Option("jobs", value: .integer(1...2, name: "N"), need: "use 1 or 2", help: "j"),
        ], minPositionals: 1)
        let p = try parse(["x", "--tier", "basic", "--beam", "5", "--low", "0.5", "--factor=1000"], for: typed)
        #expect(p.value("beam") == "5" && p.value("low") == "0.5" && p.value("factor") == "1000" && p.value("tier") == "basic")
        #expect(p.value("jobs") == nil)
        for (arguments, option, value, reason) in [
            (["--tier", "fast"], "tier", "fast", "use auto, modern or basic"),
            (["--beam", "9"], "beam", "9", "a whole number from 1 to 8"),
            (["--beam", "2.5"], "beam", "2.5", "a whole number from 1 to 8"),
            (["--low", "nan"], "low", "nan", "a number from 0 to 1"),
            (["--low", "-0.1"], "low", "-0.1", "a number from 0 to 1"),
            (["--factor", "0"], "factor", "0", "a number above 0 and at most 1000"),
            (["--factor", "inf"], "factor", "inf", "a number above 0 and at most 1000"),
            (["--jobs", "4"], "jobs", "4", "use 1 or 2"),
        ] {
            #expect(throws: UsageError.invalidValue(option: option, value: value, reason: reason)) { try parse(["x"] + arguments, for: typed) }
        }
        // Help shows the choices, the range and the default from the same declaration.
        let help = typed.helpText(program: "capforge")
        #expect(help.contains("--tier auto|modern|basic") && help.contains("t (default auto)"))
        #expect(help.contains("--beam N") && help.contains("b (1-8; default 1)"))
        #expect(help.contains("f (above 0, at most 1000)"))
    }

    enum Tier: String, CaseIterable { case auto, modern, basic }

    struct Encoding: Sendable { var crf = 23; var notice: String? }
    struct Typed: Sendable {
        var tier = Tier.auto
        var beam = 1
        var low: Double?
        var factor = 3.0
        var lang: String?
        var json = false
        var chunking = true
        var shard: (Int, Int)?
        var encoding = Encoding()
    }

    static let encodingFields: [OptionTable<Encoding>.Field] = [
        .integer("crf", \.crf, 0...51, help: "c"),
        .text("notice-text", \.notice, value: "TEXT", help: "n"),
    ]
    static let table = OptionTable(initial: Typed(), [
        .choice("tier", \.tier, help: "t"),
        .integer("beam", \.beam, 1...8, help: "b"),
        .number("low", \.low, 0...1, value: "P", help: "l"),
        .number("factor", \.factor, 0...1000, value: "X", aboveLowerBound: true, help: "f"),
        .text("lang", \.lang, value: "CODE", help: "g"),
        .flag("json", \.json, help: "j"),
        .flag("no-chunking", \.chunking, to: false, help: "n"),
        .parsed("shard", \.shard, value: "I/N", help: "s") { text in
            let parts = text.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 2, (1...parts[1]).contains(parts[0]) else { throw OptionRefusal("use I/N") }
            return (parts[0], parts[1])
        },
    ] + OptionTable.Field.lifted(encodingFields, into: \.encoding))

    /// Options decode once, through their table, into a typed value that starts from the
    /// table's initial one; help states each default from that value; a value a parser refuses
    /// is a usage error naming the option; a table's fields set a part of another's options.
    @Test func typedOptionsDecodeThroughTheirTable() throws {
        let command = Command("caption", summary: "s", usage: "PATH...", options: Self.table.options, minPositionals: 1)
        let given = try Self.table.decode(parse(["x", "--tier", "basic", "--beam", "5", "--low", "0.5", "--json", "--no-chunking", "--shard", "2/8",
                                                  "--crf", "18", "--notice-text", "hi"], for: command))
        #expect(given.tier == .basic && given.beam == 5 && given.low == 0.5 && given.factor == 3 && given.lang == nil)
        #expect(given.json && !given.chunking && given.shard! == (2, 8) && given.encoding.crf == 18 && given.encoding.notice == "hi")
        let none = try Self.table.decode(parse(["x"], for: command))
        #expect(none.tier == .auto && none.beam == 1 && none.low == nil && !none.json && none.chunking && none.shard == nil && none.encoding.crf == 23)
        let help = command.helpText(program: "capforge")
        #expect(help.contains("t (default auto)") && help.contains("b (1-8; default 1)") && help.contains("f (above 0, at most 1000; default 3)"))
        #expect(help.contains("c (0-51; default 23)") && help.contains("  --low P") && !help.contains("l (0-1; default"))
        #expect(throws: UsageError.invalidValue(option: "shard", value: "9/8", reason: "use I/N")) {
            try Self.table.decode(parse(["x", "--shard", "9/8"], for: command))
        }
    }

    @Test func helpNeedsNoPositionals() throws {
        #expect(try parse(["--help"], for: command).wantsHelp)
        #expect(command.helpText(program: "capforge").contains("--lang CODE"))
    }

    /// The man page's section is the help's declarations in roff, text kept literal.
    @Test func manSectionFromTheSameDeclarations() {
        let section = Command("lint", summary: ".srt files", usage: "FILE...", options: [
            Option("beam", value: .integer(1...8, name: "N"), default: "1", help: "width, a\\b"),
        ], minPositionals: 1).manSection(program: "capforge")
        #expect(section.hasPrefix(".SS lint\n.B capforge lint\nFILE...\n.PP\n\\&.srt files"), "\(section)")
        #expect(section.contains(".TP\n\\fB\\-\\-beam\\fR \\fIN\\fR\nwidth, a\\eb (1\\-8; default 1)"), "\(section)")
        #expect(section.contains("\\fB\\-h\\fR, \\fB\\-\\-help\\fR"))
    }

    @Test func suggestions() {
        #expect(closest(to: "captoin", among: ["caption", "export", "probe"]) == "caption")
        #expect(closest(to: "zzzzzz", among: ["caption", "export"]) == nil)
        #expect(editDistance("", "abc") == 3)
    }
}
