import Arguments

/// One entry per subcommand; each runs with its parsed arguments and returns an exit code.
struct Subcommand: Sendable {
    let spec: Command
    let run: @Sendable (ParsedArguments) throws -> Int32
}

let subcommands: [Subcommand] = [captionCommand, exportCommand, burnCommand, muxCommand, probeCommand, extractCommand, languagesCommand, modelsCommand, lintCommand]
