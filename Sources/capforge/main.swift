import Arguments
import Batch
import CapforgeCore
import Foundation
import Media

func topLevelHelp() -> String {
    let width = (subcommands.map(\.spec.name.count).max() ?? 0) + 2
    let list = subcommands.map { "  " + $0.spec.name.padding(toLength: width, withPad: " ", startingAt: 0) + $0.spec.summary }
    return """
        capforge \(CapforgeVersion.string): captions for video folders, offline.

        Usage: capforge COMMAND [OPTIONS] [ARGS]

        Commands:
        \(list.joined(separator: "\n"))

        Options:
          -h, --help     show this list
          -V, --version  show the version of capforge and of the libraries it uses
              --man      print this manual as a man page (roff): capforge --man | man -l -

        Run 'capforge COMMAND --help' for a command's options.
        """
}

/// capforge(1), from the commands' declarations: what `--help` says, as a man page.
func manPage() -> String {
    """
    .TH CAPFORGE 1 "" "capforge \(CapforgeVersion.string)" "User Commands"
    .SH NAME
    capforge \\- captions for video folders, offline
    .SH SYNOPSIS
    .B capforge
    \\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGS\\fR]
    .SH DESCRIPTION
    For every video and audio file in the files and folders given, capforge extracts the audio, transcribes it with
    the best recogniser installed for its language (Whisper, else a basic-tier engine whose captions are flagged as
    such), and writes captions by professional subtitle rules as SRT, ASS, WebVTT and JSON; it can burn them into the
    video or add them as a subtitle track. Outputs go next to each input (or under \\fB\\-\\-out\\fR); a rerun skips
    what is current and resumes what was interrupted.
    .SH COMMANDS
    \(subcommands.map { $0.spec.manSection(program: "capforge") }.joined(separator: "\n"))
    .SH ENVIRONMENT
    .TP
    .B CAPFORGE_MODELS
    the folder of models to use instead of the installed ones
    .TP
    .B NO_COLOR
    no colour in the progress display
    .SH EXIT STATUS
    0 when every file was captioned, 1 when a file failed, 2 for a usage error, 3 when \\fBextract\\fR read a
    truncated file, 130 when interrupted.
    .SH SEE ALSO
    \\fBcapforge \\-\\-help\\fR, \\fBcapforge\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR, and the project's README.
    """
}

func runMain() -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    guard let first = arguments.first else {
        printError(TerminalText(lines: topLevelHelp()))
        return ExitCode.usage
    }
    switch first {
    case "--help", "-h", "help":
        printLine(TerminalText(lines: topLevelHelp()))
        return ExitCode.success
    case "--version", "-V":
        printLine(TerminalText(lines: CapforgeVersion.report()))
        return ExitCode.success
    case "--man":
        printLine(TerminalText(lines: manPage()))
        return ExitCode.success
    default:
        break
    }
    arguments.removeFirst()
    if ["caption", "export"].contains(first) { SpinLimit.ensure() }
    guard let subcommand = subcommands.first(where: { $0.spec.name == first }) else {
        let error = UsageError.unknownCommand(first, suggestion: closest(to: first, among: subcommands.map(\.spec.name)))
        printError("capforge: \(error)\nRun 'capforge --help' for the list of commands.")
        return ExitCode.usage
    }
    do {
        let parsed = try parse(arguments, for: subcommand.spec)
        if parsed.wantsHelp {
            printLine(TerminalText(lines: subcommand.spec.helpText(program: "capforge")))
            return ExitCode.success
        }
        return try subcommand.run(parsed)
    } catch let error as UsageError {
        // Errors quote what was typed or named, and a name can hold terminal escape sequences:
        // printError escapes them.
        printError("capforge \(first): \(error)\nRun 'capforge \(first) --help' for usage.")
        return ExitCode.usage
    } catch {
        printError("capforge \(first): \(error)")
        return ExitCode.failure
    }
}

exit(runMain())
