import Captions

/// Applies the notice policy to a script: the notice, when shown, covers every frame.
enum NoticeLine {
    /// Later than any video: notice events span the whole file whatever the script said.
    static let start = "0:00:00.00"
    static let end = "99:59:59.99"

    /// `styleSheet` gives the Notice style when the script has none.
    static func apply(_ mode: NoticeMode, text: String, styleSheet: StyleSheet, to script: inout ASSDocument) {
        let existing = script.events.filter(\.isNotice)
        switch mode {
        case .never:
            script.remove(existing)
        case .auto where existing.isEmpty:
            return
        case .auto, .always:
            guard existing.isEmpty else {
                for var event in existing {
                    event["Start"] = start
                    event["End"] = end
                    script.replace(event)
                }
                return
            }
            if !script.styles.contains(where: \.isNotice) {
                script.append("Style", values: styleSheet.noticeStyle(height: script.playResY), to: .styles)
            }
            script.append("Dialogue", values: ["Layer": "1", "Start": start, "End": end, "Style": ASSDocument.noticeStyle,
                                               "Text": ASSEventText.escape(text)], to: .events)
        }
    }
}
