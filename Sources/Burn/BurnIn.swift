import CapforgeCore
import Captions
import Foundation
import Media

/// Burns an ASS script into a video: decode, render with libass at each frame's time, blend in
/// the video's own YUV, encode, and copy the other streams, written atomically to `output`.
public struct BurnIn: Sendable {
    public let input: String
    public let output: String
    public let script: ASSDocument
    /// Gives the Notice style when the notice is added to a script that has none.
    public let styleSheet: StyleSheet
    public let options: BurnOptions
    /// What may be replaced at `output`; the input is always protected, and a video is never
    /// streamed into a device or FIFO (the muxer seeks).
    public let outputPolicy: OutputPolicy

    public init(
        input: String, output: String, script: ASSDocument, styleSheet: StyleSheet, options: BurnOptions = BurnOptions(), outputPolicy: OutputPolicy
    ) {
        self.input = input
        self.output = output
        self.script = script
        self.styleSheet = styleSheet
        self.options = options
        var policy = outputPolicy.protecting([input])
        policy.streamsToSpecialFiles = false
        self.outputPolicy = policy
    }

    /// The script that will be rendered: the notice policy and the render limits applied.
    public var renderedScript: ASSDocument { prepared.script }

    /// The rendered script with what the limits changed.
    private var prepared: (script: ASSDocument, warnings: [BurnWarning]) {
        var script = script
        NoticeLine.apply(options.notice, text: options.noticeText, styleSheet: styleSheet, to: &script)
        return script.limitedForRendering()
    }

    /// Fails before any decoding when fonts lack characters the captions or the notice use.
    public func checkFonts() throws -> [BurnWarning] {
        try checkFonts(in: renderedScript)
    }

    private func checkFonts(in script: ASSDocument) throws -> [BurnWarning] {
        let fonts = try FontCoverage()
        let missing = FontPreflight.missing(in: script, fonts: fonts)
        guard !missing.characters.isEmpty else { return [] }
        guard options.allowMissingGlyphs else { throw BurnError.missingGlyphs(characters: missing.characters, fonts: missing.families) }
        return [.missingGlyphs(characters: missing.characters)]
    }

    /// Throws `Cancelled()` when cancelled; the output path is then left untouched.
    public func run(cancellation: Cancellation? = nil, progress: (BurnProgress) -> Void = { _ in }) throws -> BurnReport {
        // A folder or device at the output is refused by name before its extension is asked
        // what format it is (as in SubtitleMux).
        _ = try outputPolicy.destination(for: URL(fileURLWithPath: output))
        let (script, limitWarnings) = prepared
        let fontWarnings = try checkFonts(in: script)
        let session = try BurnSession(input: input, output: output, script: script.text, options: options, outputPolicy: outputPolicy)
        var report = try session.run(cancellation: cancellation, progress: progress)
        report.warnings = fontWarnings + limitWarnings + report.warnings
        return report
    }
}
