import Arguments
import Batch
import CapforgeCore
import Captions
import Media
import Speech

/// What every command's options hold: whether library warnings are shown.
protocol CommandOptions: Sendable {
    var verbose: Bool { get }
}

extension CommandOptions {
    var verbose: Bool { false }
}

/// One entry per subcommand: its declaration, and a run that decodes its options once, through
/// its table, and returns an exit code.
struct Subcommand: Sendable {
    let spec: Command
    let run: @Sendable (ParsedArguments) throws -> Int32

    init<Options: CommandOptions>(_ name: String, summary: String, usage: String, options table: OptionTable<Options>, positionals: ClosedRange<Int>,
                                  run: @escaping @Sendable (Options, [String]) throws -> Int32) {
        spec = Command(name, summary: summary, usage: usage, options: table.options, positionals: positionals)
        self.run = { parsed in
            let options = try table.decode(parsed)
            LibraryLogging.configure(verbose: options.verbose)
            return try run(options, parsed.positionals)
        }
    }
}

let subcommands: [Subcommand] = [captionCommand, exportCommand, burnCommand, muxCommand, syncCommand, probeCommand, extractCommand, languagesCommand, modelsCommand, lintCommand]

/// `--profile` as caption and lint read it: nil for auto. A name or file that gives no profile
/// is a usage error (exit 2) in both, as any other bad option value is.
func profileChoice(_ text: String) throws -> CaptionProfile? {
    do {
        return try Lint.profile(named: text)
    } catch {
        throw OptionRefusal("\(error)")
    }
}

/// `--lang CODE` where it names one language (mux, sync, burn).
func languageCode(_ code: String) throws -> Language {
    guard let language = Language(code) else { throw OptionRefusal("not a language code Capforge knows") }
    return language
}

/// An error that says an option named nothing usable (a style or model name), as the usage error
/// it is (exit 2); any other error as it is.
func asUsageError(_ error: Error) -> Error {
    switch error {
    case StyleError.notFound(let name, _, _):
        return UsageError.invalidValue(option: "style", value: name, reason: "\(error)")
    case let error as ModelChoiceError:
        let option = error.role == .transcribing ? "model" : "cross-check"
        switch error.problem {
        case .notFound(let choices):
            return UsageError.invalidValue(option: option, value: error.name,
                                           reason: "model not found at \(error.name): --\(option) takes an installed Whisper model's name (\(choices)) or a ggml model file")
        case .transcribesAlready:
            return UsageError.invalidValue(option: option, value: error.name, reason: "it is the --model that transcribes; cross-check with another model")
        }
    default:
        return error
    }
}
