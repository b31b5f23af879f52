/// Why a model directory could not be turned into a usable ggml model.
public enum ModelImportError: Error, CustomStringConvertible, Equatable {
    case missingFile(path: String)
    case unreadable(path: String, reason: String)
    case malformed(path: String, reason: String)
    case unsupported(path: String, reason: String)

    public var description: String {
        switch self {
        case .missingFile(let path):
            return "\(path) is missing: a CTranslate2 Whisper model folder holds model.bin (or model.bin.part1 + model.bin.part2), config.json and vocabulary.txt"
        case .unreadable(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .malformed(let path, let reason):
            return "\(path) is not a valid CTranslate2 Whisper model: \(reason)"
        case .unsupported(let path, let reason):
            return "\(path) cannot be imported: \(reason)"
        }
    }
}
