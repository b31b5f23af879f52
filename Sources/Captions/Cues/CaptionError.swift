/// Errors from building captions that a user can act on.
public enum CaptionError: Error, CustomStringConvertible, Equatable {
    case invalidFrameRate(Double)
    /// ICU could not be opened or could not segment text.
    case wordSegmentation(String)

    public var description: String {
        switch self {
        case .invalidFrameRate(let rate):
            return "frame rate \(rate) is not usable; pass the video's frame rate, e.g. 24, 25, 30 or 60"
        case .wordSegmentation(let code):
            return "Chinese and Japanese captions need ICU's word segmentation, which failed (\(code)); install Debian's libicu72 package"
        }
    }
}
