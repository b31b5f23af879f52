import CWhisper
import Testing
@testable import Speech

@Suite struct WhisperABITests {
    @Test func libraryIsTheHeadersReleaseOpenedOnDemandWithEveryFunction() throws {
        #expect(WhisperLibrary.problem == nil)
        #expect(try WhisperLibrary.version == "1.8.5")
    }

    @Test func canaryPassesOnTheInstalledLibrary() throws {
        try WhisperLibrary.verifyABI()
    }

    @Test func canaryFiresOnAWrongExpectation() {
        var wrong = WhisperABIExpectation.release1_8_5
        wrong.release = "test"
        wrong.fields.append(.init(name: "grammar_penalty", expected: .float(99)) { .float($0.grammar_penalty) })
        #expect {
            try WhisperLibrary.verifyABI(against: wrong)
        } throws: { error in
            guard let abi = error as? WhisperABIError else { return false }
            return abi.mismatches == ["grammar_penalty is 100.0, expected 99.0"]
                && abi.description.contains("Scripts/setup")
        }
    }
}
