import CapforgeCore
import Foundation
import Media

/// Burns an ASS script into a video: decode, render with libass at each frame's time, blend in
/// the video's own YUV, encode, and copy the other streams, written atomically to `output`.
public struct BurnIn: Sendable {
    public let input: String
    public let output: String
    public let assScript: String
    public let options: BurnOptions
    /// What may be replaced at `output`; the input is always protected, and a video is never
    /// streamed into a device or FIFO (the muxer seeks).
    public let outputPolicy: OutputPolicy

    public init(input: String, output: String, assScript: String, options: BurnOptions = BurnOptions(), outputPolicy: OutputPolicy) {
        self.input = input
        self.output = output
        self.assScript = assScript
        self.options = options
        var policy = outputPolicy.protecting([input])
        policy.streamsToSpecialFiles = false
        self.outputPolicy = policy
    }

    /// The script that will be rendered: the notice policy applied.
    public var renderedScript: String { preparedScript.text }

    var preparedScript: SubtitleScript { prepared.script }

    /// The notice policy and the render limits applied, with what the limits changed.
    private var prepared: (script: SubtitleScript, warnings: [BurnWarning]) {
        var script = SubtitleScript(assScript)
        NoticeLine.apply(options.notice, text: options.noticeText, to: &script)
        return script.limitedForRendering()
    }

    /// Fails before any decoding when fonts lack characters the captions or the notice use.
    public func checkFonts() throws -> [BurnWarning] {
        try checkFonts(in: preparedScript)
    }

    private func checkFonts(in script: SubtitleScript) throws -> [BurnWarning] {
        let fonts = try FontCoverage()
        let missing = FontPreflight.missing(in: script, fonts: fonts)
        guard !missing.characters.isEmpty else { return [] }
        guard options.allowMissingGlyphs else { throw BurnError.missingGlyphs(characters: missing.characters, fonts: missing.families) }
        return [.missingGlyphs(characters: missing.characters)]
    }

    /// Throws `Cancelled()` when cancelled; the output path is then left untouched.
    public func run(cancellation: Cancellation? = nil, progress: (BurnProgress) -> Void = { _ in }) throws -> BurnReport {
        let (script, limitWarnings) = prepared
        let fontWarnings = try checkFonts(in: script)
        let session = try BurnSession(input: input, output: output, script: script.text, options: options, outputPolicy: outputPolicy)
        var report = try session.run(cancellation: cancellation, progress: progress)
        report.warnings = fontWarnings + limitWarnings + report.warnings
        return report
    }
}
