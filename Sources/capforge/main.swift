import Arguments
import Batch
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

        Run 'capforge COMMAND --help' for a command's options.
        """
}

func runMain() -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    guard let first = arguments.first else {
        printError(topLevelHelp())
        return ExitCode.usage
    }
    switch first {
    case "--help", "-h", "help":
        print(topLevelHelp())
        return ExitCode.success
    case "--version", "-V":
        print(CapforgeVersion.report())
        return ExitCode.success
    default:
        break
    }
    arguments.removeFirst()
    if ["caption", "export"].contains(first) { SpinLimit.ensure() }
    guard let subcommand = subcommands.first(where: { $0.spec.name == first }) else {
        let error = UsageError.unknownCommand(first, suggestion: closest(to: first, among: subcommands.map(\.spec.name)))
        printError("capforge: \(Format.terminalSafe("\(error)"))\nRun 'capforge --help' for the list of commands.")
        return ExitCode.usage
    }
    do {
        let parsed = try parse(arguments, for: subcommand.spec)
        if parsed.wantsHelp {
            print(subcommand.spec.helpText(program: "capforge"))
            return ExitCode.success
        }
        LibraryLogging.configure(verbose: parsed.flag("verbose"))
        return try subcommand.run(parsed)
    } catch let error as UsageError {
        // Errors quote what was typed or named, and a name can hold terminal escape sequences.
        printError("capforge \(first): \(Format.terminalSafe("\(error)"))\nRun 'capforge \(first) --help' for usage.")
        return ExitCode.usage
    } catch {
        printError("capforge \(first): \(Format.terminalSafe("\(error)"))")
        return ExitCode.failure
    }
}

exit(runMain())
