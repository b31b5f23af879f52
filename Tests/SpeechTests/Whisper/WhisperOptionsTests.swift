import Testing
@testable import Speech

@Suite struct WhisperOptionsTests {
    @Test func threadsNeedABoundedSpinToGoParallel() {
        #expect(WhisperOptions.recommendedThreads(environment: [:], cores: 8) == 1)
        #expect(WhisperOptions.recommendedThreads(environment: ["GOMP_SPINCOUNT": "2000"], cores: 2) == 2)
        #expect(WhisperOptions.recommendedThreads(environment: ["GOMP_SPINCOUNT": "2000"], cores: 16) == 4)
        #expect(WhisperOptions.recommendedThreads(environment: ["OMP_WAIT_POLICY": "PASSIVE"], cores: 1) == 1)
        #expect(WhisperOptions(threads: 0, beamSize: 0) == WhisperOptions(threads: 1, beamSize: 1))
    }
}
