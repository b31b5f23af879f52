import Arguments
import Batch
import Burn
import CapforgeCore
import Captions
import Foundation
import Media

struct BurnCommandOptions: CommandOptions {
    var subtitles: String?
    var language: String?
    var out: String?
    var style = StyleSheet.defaultName
    var overwrite = false
    var verbose = false
    var encoding = EncodingOptions()
}

let burnCommand = Subcommand(
    "burn", summary: "Burn captions into a copy of a video: a subtitle file (SRT, WebVTT, ASS, TTML or SCC), or the captions Capforge made for it.",
    usage: "VIDEO [--subs FILE] [--out OUT] [OPTIONS]",
    options: OptionTable(initial: BurnCommandOptions(), [
        .text("subs", \.subtitles, value: "FILE", help: "subtitles to burn (default: the <name>.<lang>.ass Capforge wrote beside the video)"),
        .text("lang", \.language, value: "CODE", help: "which of Capforge's caption files to use when there are several languages"),
        .text("out", short: "o", \.out, value: "OUT", help: "output video (default <name>.captioned.mp4 beside the input; .mkv also works)"),
        .parsed("style", \.style, value: "NAME", help: "caption style for SRT/WebVTT input, and the notice style an ASS script lacks: default, large, top") { $0 },
        .flag("overwrite", \.overwrite, help: overwriteHelp),
        .flag("verbose", short: "v", \.verbose, help: "show library warnings"),
    ] + OptionTable.Field.lifted(encodingOptions, into: \.encoding)),
    positionals: 1...1
) { options, paths in
    let video = URL(fileURLWithPath: paths[0]).standardizedFileURL
    let probe = try MediaProbe(path: video.path)
    guard let picture = probe.video else {
        throw MediaError.library(path: video.path, operation: "burn-in", code: -1, message: "the file has no video stream to burn captions into")
    }
    let subtitles = try options.subtitles.map { URL(fileURLWithPath: $0) } ?? captionsMadeByCapforge(for: video, language: options.language)
    let language = Language(subtitles.deletingPathExtension().pathExtension)
    let styleSheet: StyleSheet
    do {
        styleSheet = try StyleSheet.load(named: options.style)
    } catch {
        throw asUsageError(error)
    }
    let script: ASSDocument
    if SubtitleFormats.reading(fileExtension: subtitles.pathExtension)?.id == .ass {
        script = try SubtitleReader.script(fileAt: subtitles)
    } else {
        // SRT and WebVTT become ASS in a Capforge style, sized for this video.
        let document = try SubtitleReader.read(fileAt: subtitles)
        for warning in document.warnings { printError("capforge burn: warning: \(Format.terminalSafe("\(subtitles.path): \(warning)"))") }
        // The ASS writer takes tiers and duration from the transcript; its language is not written.
        let transcript = Transcript(language: language ?? .english, words: [], duration: probe.duration ?? 0)
        script = ASSWriter(cues: document.cues, transcript: transcript, video: VideoSize(width: picture.displayWidth, height: picture.displayHeight),
                           style: styleSheet).document()
    }
    let output = options.out.map { URL(fileURLWithPath: $0).standardizedFileURL }
        ?? video.deletingLastPathComponent().appendingPathComponent(video.deletingPathExtension().lastPathComponent + InputScanner.burnedMarker + "mp4")
    let policy = OutputPolicy.named(output, overwrite: options.overwrite).writing(.video).protecting([video.path, subtitles.path])
    var encoding = options.encoding.burn
    encoding.noticeText = options.encoding.noticeText ?? QualityNotice.text(for: language)
    let cancellation = Cancellation()
    Interrupts.install(cancellation)
    let interactive = isatty(STDERR_FILENO) == 1
    let report: BurnReport
    do {
        let burn = BurnIn(input: video.path, output: output.path, script: script, styleSheet: styleSheet, options: encoding, outputPolicy: policy)
        report = try burn.run(cancellation: cancellation) { progress in
            guard interactive else { return }
            Terminal.standardError.write(.control(.clearLine),
                                         .text("burning: \(String(format: "%3.0f%%  %.0f fps", progress.fraction * 100, progress.framesPerSecond))"))
        }
    } catch is Cancelled {
        printError("capforge burn: interrupted; \(output.path) was not written")
        return Interrupts.exitCode
    }
    if interactive { Terminal.standardError.write(.control(.clearLine)) }
    for warning in report.warnings { printError("capforge burn: warning: \(warning)") }
    printLine("\(report.outputPath): \(report.frames) frames, \(report.width)x\(report.height), \(String(format: "%.2f s", report.duration))")
    return report.isTruncated ? ExitCode.partial : ExitCode.success
}

/// The ASS file `capforge caption` wrote beside the video (`<stem>.<lang>.ass`).
private func captionsMadeByCapforge(for video: URL, language: String?) throws -> URL {
    let written = CaptionFiles.written(for: video).compactMap { entry in entry.files.first { $0.pathExtension == "ass" }.map { (entry.language, $0) } }
    let wanted = language.flatMap(Language.init)
    let matching = wanted.map { code in written.filter { $0.0 == code } } ?? written
    guard let first = matching.first else {
        throw UsageError.invalidValue(option: "subs", value: "(none)", reason: "no captions found for \(video.lastPathComponent): run 'capforge caption' first or pass --subs FILE")
    }
    guard matching.count == 1 else {
        throw UsageError.invalidValue(option: "lang", value: "(none)", reason: "captions exist in several languages (\(matching.map(\.1.lastPathComponent).joined(separator: ", "))); choose one with --lang")
    }
    return first.1
}
