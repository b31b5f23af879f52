import CapforgeCore
import Media

/// When the burned picture carries the "basic recognition" notice line.
public enum NoticeMode: String, Sendable, Equatable, Codable, CaseIterable {
    /// Only when the script has a `Notice` event (the ASS writer adds one for basic-tier words).
    case auto
    case always
    case never
}

public struct BurnOptions: Sendable, Equatable, Codable {
    /// An FFmpeg encoder name.
    public var codec: String
    /// Constant-quality setting, applied when the encoder has a `crf` option.
    public var crf: Int
    /// Speed/size trade-off, applied when the encoder has a `preset` option.
    public var preset: String
    public var notice: NoticeMode
    /// Used when the notice is added here (`always` on a script without one); callers set it in
    /// the caption language.
    public var noticeText: String
    /// Burn even when fonts lack some characters (they show as boxes).
    public var allowMissingGlyphs: Bool

    public init(
        codec: String = "libx264", crf: Int = 20, preset: String = "veryfast",
        notice: NoticeMode = .auto, noticeText: String = QualityNotice.english,
        allowMissingGlyphs: Bool = false
    ) {
        self.codec = codec
        self.crf = crf
        self.preset = preset
        self.notice = notice
        self.noticeText = noticeText
        self.allowMissingGlyphs = allowMissingGlyphs
    }
}
