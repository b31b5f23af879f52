import Foundation
import Synchronization
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

    /// A thread pinned to one core (as `taskset -c 0` pins a process) may use one core, however
    /// many the machine has.
    @Test func usableCoresFollowTheAffinity() throws {
        #expect(WhisperOptions.usableCores() == ProcessInfo.processInfo.activeProcessorCount)
        let seen = Mutex<Int?>(nil)
        let pinned = Thread {
            // The thread pins itself with taskset, as a user pins a process.
            let taskset = Process()
            taskset.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            guard let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") else { return }
            taskset.arguments = ["-p", "-c", "0", (me as NSString).lastPathComponent]  // me: "PID/task/TID"
            taskset.standardOutput = FileHandle.nullDevice
            guard (try? taskset.run()) != nil else { return }
            taskset.waitUntilExit()
            seen.withLock { $0 = WhisperOptions.usableCores() }
        }
        pinned.start()
        while pinned.isExecuting || !pinned.isFinished { usleep(1000) }
        #expect(seen.withLock { $0 } == 1)
    }
}
