import Arguments
import Batch
import CapforgeCore
import Captions
import Speech

/// One entry per subcommand; each runs with its parsed arguments and returns an exit code.
struct Subcommand: Sendable {
    let spec: Command
    let run: @Sendable (ParsedArguments) throws -> Int32
}

let subcommands: [Subcommand] = [captionCommand, exportCommand, burnCommand, muxCommand, syncCommand, probeCommand, extractCommand, languagesCommand, modelsCommand, lintCommand]

/// `--profile` as caption and lint read it: nil for auto or none given. A name or file that gives
/// no profile is a usage error (exit 2) in both, as any other bad option value is.
func profileOption(_ args: ParsedArguments) throws -> CaptionProfile? {
    guard let value = args.value("profile") else { return nil }
    do {
        return try Lint.profile(named: value)
    } catch {
        throw UsageError.invalidValue(option: "profile", value: value, reason: "\(error)")
    }
}

/// An error that says an option named nothing usable (a style or model name), as the usage error
/// it is (exit 2); any other error as it is.
func asUsageError(_ error: Error, _ args: ParsedArguments) -> Error {
    switch error {
    case StyleError.notFound(let name, _, _):
        return UsageError.invalidValue(option: "style", value: name, reason: "\(error)")
    case SpeechError.modelMissing(let path, _):
        guard let option = ["model", "cross-check"].first(where: { args.value($0) == path }) else { return error }
        return UsageError.invalidValue(option: option, value: path, reason: "\(error)")
    default:
        return error
    }
}

/// `--lang CODE` where it names one language (mux, sync): nil when not given.
func languageOption(_ args: ParsedArguments) throws -> Language? {
    try args.value("lang").map { code in
        guard let language = Language(code) else {
            throw UsageError.invalidValue(option: "lang", value: Format.terminalSafe(code), reason: "not a language code Capforge knows")
        }
        return language
    }
}
