/// Errors from building captions that a user can act on.
public enum CaptionError: Error, CustomStringConvertible, Equatable {
    case invalidFrameRate(Double)

    public var description: String {
        switch self {
        case .invalidFrameRate(let rate):
            return "frame rate \(rate) is not usable; pass the video's frame rate, e.g. 24, 25, 30 or 60"
        }
    }
}
