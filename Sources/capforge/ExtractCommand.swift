import Arguments
import CapforgeCore
import Foundation
import Media

struct ExtractOptions: CommandOptions {
    var output: String?
    var stream: Int?
    var language: String?
    var overwrite = false
    var verbose = false
}

let extractCommand = Subcommand(
    "extract", summary: "Decode one audio stream to 16 kHz mono Float32 little-endian raw samples (time origin: the file's start).",
    usage: "FILE -o OUT.f32 [--stream N | --lang CODE]",
    options: OptionTable(initial: ExtractOptions(), [
        .text("output", short: "o", \.output, value: "OUT", help: "where to write the raw samples ('-' for standard output)"),
        .integer("stream", \.stream, 0...Int.max, need: "not a stream index", help: "audio stream index (see 'capforge probe')"),
        .text("lang", \.language, value: "CODE", help: "pick the audio stream tagged with this language (en, eng, English...)"),
        .flag("overwrite", \.overwrite, help: overwriteHelp),
        .flag("verbose", short: "v", \.verbose, help: "show library warnings"),
    ]),
    positionals: 1...1
) { options, paths in
    guard let output = options.output else { throw UsageError.missingValue("output") }
    // Samples are not text: on a terminal their bytes would act as control sequences.
    if output == "-", isatty(STDOUT_FILENO) == 1 {
        throw UsageError.invalidValue(option: "output", value: output, reason: "standard output is a terminal; redirect it (-o - > OUT.f32) or name a file")
    }
    let selection = try options.audioSelection()
    let path = paths[0]
    let sink = try RawSampleWriter(path: output, policy: OutputPolicy.named(URL(fileURLWithPath: output), overwrite: options.overwrite).writing(.audio).protecting([path]))
    let cancellation = Cancellation()
    Interrupts.install(cancellation)
    let report: ExtractionReport
    do {
        report = try AudioExtractor(path: path, selection: selection).extract(cancellation: cancellation) { try sink.write($0) }
    } catch is Cancelled {
        printError("capforge extract: interrupted; \(output) was not written")
        return Interrupts.exitCode
    }
    try sink.finish()
    for warning in report.warnings { printError("capforge extract: \(path): warning: \(warning)") }
    printError("\(path): stream #\(report.streamIndex), \(report.sampleCount) samples (\(String(format: "%.3f", Double(report.sampleCount) / 16_000)) s)")
    return report.isTruncated ? ExitCode.partial : ExitCode.success
}

extension ExtractOptions {
    func audioSelection() throws -> AudioStreamSelection {
        switch (stream, language) {
        case (let index?, nil):
            return .index(index)
        case (nil, let lang?) where lang != "auto":
            return .language(lang)
        case (nil, _):
            return .automatic
        case (let index?, _?):
            throw UsageError.invalidValue(option: "stream", value: "\(index)", reason: "use either --stream or --lang, not both")
        }
    }
}

/// Buffered little-endian Float32 output to a file (atomically replaced) or standard output.
final class RawSampleWriter {
    private let file: AtomicFileWriter?
    private var buffer = Data()

    init(path: String, policy: OutputPolicy) throws {
        file = path == "-" ? nil : try AtomicFileWriter(URL(fileURLWithPath: path), policy: policy)
    }

    func write(_ samples: ArraySlice<Float>) throws {
        samples.withUnsafeBytes { buffer.append(contentsOf: $0) }
        if buffer.count >= 1 << 20 { try flush() }
    }

    func finish() throws {
        try flush()
        try file?.commit()
    }

    private func flush() throws {
        if let file {
            try file.append(buffer)
        } else {
            FileHandle.standardOutput.write(buffer)
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
