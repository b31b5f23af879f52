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

    /// A number option is absent, in range, or a usage error naming the option, the value and
    /// the reason: not a number, out of range, or (for a whole number) a fraction.
    @Test func numbersAreCheckedWhereTheyAreRead() throws {
        let p = try parse(["x", "--jobs", "2", "--lang", "1.5"], for: command)
        #expect(try p.number("jobs", in: 1...2, reason: "1 or 2") == 2)
        #expect(try p.number("formats", in: 1...2, reason: "1 or 2") == nil)
        #expect(try p.number("lang", in: 0.0...2, reason: "r") == 1.5)
        #expect(throws: UsageError.invalidValue(option: "lang", value: "1.5", reason: "whole")) { try p.number("lang", in: 0...2, reason: "whole") }
        #expect(throws: UsageError.invalidValue(option: "jobs", value: "2", reason: "one")) { try p.number("jobs", in: 1...1, reason: "one") }
        let nan = try parse(["x", "--lang", "nan"], for: command)
        #expect(throws: UsageError.invalidValue(option: "lang", value: "nan", reason: "r")) { try nan.number("lang", in: 0.0...1, reason: "r") }
        #expect(throws: UsageError.invalidValue(option: "lang", value: "nan", reason: "positive")) {
            try nan.number("lang", reason: "positive", accepts: { (x: Double) in x > 0 })
        }
    }

    @Test func helpNeedsNoPositionals() throws {
        #expect(try parse(["--help"], for: command).wantsHelp)
        #expect(command.helpText(program: "capforge").contains("--lang CODE"))
    }

    @Test func suggestions() {
        #expect(closest(to: "captoin", among: ["caption", "export", "probe"]) == "caption")
        #expect(closest(to: "zzzzzz", among: ["caption", "export"]) == nil)
        #expect(editDistance("", "abc") == 3)
    }
}
