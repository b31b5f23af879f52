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
        #expect(p.integer("beam") == 5 && p.number("low") == 0.5 && p.number("factor") == 1000)
        #expect(p.choice("tier", as: Tier.self) == .basic)
        #expect(p.integer("jobs") == nil)
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

    enum Tier: String { case auto, modern, basic }

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
