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
