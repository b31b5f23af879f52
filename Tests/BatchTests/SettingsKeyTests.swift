import Batch
import Burn
import CapforgeCore
import Captions
import Speech
import Testing

/// The manifest's settings key decides whether a file's outputs are current: keys made by
/// earlier versions must come out the same, or every captioned folder would be redone.
@Suite struct SettingsKeyTests {
    static let engines = [EngineIdentity(engine: "whisper", tier: .modern, model: "tiny.en", modelSHA256: "abc", runtime: "capforge"),
                          EngineIdentity(engine: "pocketsphinx", tier: .basic, model: "en-us")]

    static func key(_ settings: BatchSettings, soundEvents: String? = nil) throws -> String {
        try settings.key(engines: engines, calibration: MeasuredCalibration.table, soundEvents: soundEvents)
    }

    /// Hex digests recorded by the build before the key was spelt out (commit 5b99562).
    @Test func keysMadeBeforeStayCurrent() throws {
        let plain = try Self.key(BatchSettings())
        #expect(plain == "59d8277a8828bc490bbd877e36c3feeccf1321773ba5cfdd0205b365277b95f0", "\(plain)")
        let checked = try Self.key(BatchSettings(), soundEvents: "fireredvad-aed")
        #expect(checked == "0cb03e02dc3fb8e3a8be0e78a013b0d6a92f24219e6cb9339fe607fe08e6b3e2", "\(checked)")
        var every = BatchSettings()
        every.profile = .netflixEnglish
        every.profileForEveryLanguage = true
        every.whisperNetwork = .capforge
        every.mux = true
        every.translate = true
        every.alsoOriginal = true
        every.karaoke = true
        every.shotChanges = true
        every.sdh = true
        every.burn = BurnOptions()
        every.noticeText = "notice"
        every.transcript = .beside
        every.language = .auto
        let all = try Self.key(every)
        #expect(all == "ab7783c2e20b21f22cfe4335be7ec91ab71ac7e9cb8d69e3e4e343195bd9eb32", "\(all)")
    }
}
