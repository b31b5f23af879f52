/// What can go wrong in Capforge's own Whisper runtime, said so a user can act on it.
public enum RuntimeError: Error, CustomStringConvertible, Equatable {
    /// A oneDNN call refused its arguments or ran out of memory.
    case library(call: String, status: Int)
    /// The weights do not fit the model's dimensions.
    case malformedWeights(name: String, reason: String)
    /// A decoding step was asked for something the model cannot hold.
    case invalidRequest(String)

    public var description: String {
        switch self {
        case .library(let call, let status):
            let meaning = [1: "out of memory", 2: "invalid arguments", 3: "not implemented on this CPU"][status] ?? "status \(status)"
            return "oneDNN's \(call) failed (\(meaning)); check that libdnnl2 (Debian's oneDNN) is installed and whole"
        case .malformedWeights(let name, let reason):
            return "weight \(name): \(reason)"
        case .invalidRequest(let reason):
            return reason
        }
    }
}
