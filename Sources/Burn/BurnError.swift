/// Ways a burn can fail before or while encoding, with a message a user can act on.
/// Reading the input and opening the output and encoders fail with `MediaError`.
public enum BurnError: Error, Equatable, CustomStringConvertible {
    case noVideo(path: String)
    case invalidScript(reason: String)
    case missingGlyphs(characters: [Character], fonts: [String])
    case fontconfigUnavailable
    case subtitlesUnsupported(path: String, codec: String)

    public var description: String {
        switch self {
        case .noVideo(let path):
            return "\(path): has no video stream to burn captions into"
        case .invalidScript(let reason):
            return "the subtitle script cannot be rendered: \(reason)"
        case .missingGlyphs(let characters, let fonts):
            return "no installed font covers \(GlyphList(characters)) (styles ask for \(fonts.joined(separator: ", "))); "
                + "install a font that has them, e.g. `apt-get install fonts-noto-core` (most scripts) or "
                + "`apt-get install fonts-wqy-microhei` (Chinese, Japanese, Korean), or pass --allow-missing-glyphs"
        case .fontconfigUnavailable:
            return "fontconfig could not load its configuration; check that the fontconfig package is installed"
        case .subtitlesUnsupported(let path, let codec):
            return "\(path): this output format cannot hold \(codec) subtitle tracks; use .mkv (SRT and ASS) or .mp4 (mov_text)"
        }
    }
}
