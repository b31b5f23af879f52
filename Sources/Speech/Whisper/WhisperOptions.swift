import Foundation

/// What runs Whisper's network: Capforge's own runtime over oneDNN (`WeightPrecision.preferred`;
/// issue 44: about twice libwhisper's speed), the default, or the libwhisper of the pywhispercpp
/// wheel, which alone decodes with a beam, a prompt or DTW timing and runs every ggml weight type.
public enum WhisperNetworkChoice: String, Sendable, Equatable, Codable, CaseIterable {
    case libwhisper
    case capforge

    /// The ggml weight types (`models list`'s names) the runtime reads; other models run on libwhisper.
    public static let runtimeWeightTypes: Set<String> = ["f32", "f16", "q8_0", "q5_0"]

    /// Who runs a model stored as `weightType` when `self` was asked for.
    public func running(weightType: String?) -> WhisperNetworkChoice {
        self == .capforge && !Self.runtimeWeightTypes.contains(weightType ?? "") ? .libwhisper : self
    }
}

/// How a `WhisperEngine` decodes. The defaults are the captioning defaults.
public struct WhisperOptions: Sendable, Equatable {
    /// Who runs the network (`--engine`); by default the runtime, unless these options need libwhisper.
    public var network: WhisperNetworkChoice
    /// CPU threads for ggml. Use `recommendedThreads()` unless the caller knows better.
    public var threads: Int
    /// DTW-aligned word starts (about 25–30 % slower; needs flash attention off at load).
    public var preciseTiming: Bool
    /// 1 = greedy (with temperature fallback); above 1 = Capforge's top-k beam search of that
    /// width (`BeamForcing`), pruned where the model is sure. libwhisper's own beam search is not
    /// used: 1.8.5 draws each beam's candidates by sampling the softmax.
    public var beamSize: Int
    /// Text shown to the decoder before every 30 s window of a second decoding (e.g. a glossary
    /// of spellings), which may only respell short stretches of the unprompted one
    /// (`PromptedSpelling`): prompted, Whisper skips phrases. It doubles the decoding time.
    public var initialPrompt: String?

    public init(
        threads: Int = WhisperOptions.recommendedThreads(), preciseTiming: Bool = false, beamSize: Int = 1,
        initialPrompt: String? = nil, network: WhisperNetworkChoice? = nil
    ) {
        self.threads = max(1, threads)
        self.preciseTiming = preciseTiming
        self.beamSize = max(1, beamSize)
        self.initialPrompt = initialPrompt?.isEmpty == true ? nil : initialPrompt
        let lacking = Self.onlyOnLibwhisper(preciseTiming: self.preciseTiming, beamSize: self.beamSize, initialPrompt: self.initialPrompt)
        self.network = network ?? (lacking.isEmpty ? .capforge : .libwhisper)
    }

    /// What in these options only libwhisper does, in words; empty when the runtime decodes them.
    public var onlyOnLibwhisper: [String] {
        Self.onlyOnLibwhisper(preciseTiming: preciseTiming, beamSize: beamSize, initialPrompt: initialPrompt)
    }

    private static func onlyOnLibwhisper(preciseTiming: Bool, beamSize: Int, initialPrompt: String?) -> [String] {
        (beamSize > 1 ? ["beam search"] : []) + (preciseTiming ? ["DTW timing"] : []) + (initialPrompt != nil ? ["a vocabulary prompt"] : [])
    }

    /// ggml's OpenMP barriers spin and collapse when other work shares the CPUs, unless
    /// libgomp was started with a spin limit (only the environment at exec counts). Without
    /// one, a single thread is the safe choice.
    public static func recommendedThreads(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        cores: Int = usableCores()
    ) -> Int {
        let spinBounded = environment["GOMP_SPINCOUNT"] != nil || environment["OMP_WAIT_POLICY"] != nil
        return spinBounded ? max(1, min(4, cores)) : 1
    }

    /// The cores this process may run on: a `taskset` or a container's CPU set can be fewer
    /// than the machine has, and two spinning threads on one core take turns at every barrier.
    /// (Foundation counts the machine's; the kernel's list for this thread says which it may use.)
    public static func usableCores() -> Int {
        let machine = ProcessInfo.processInfo.activeProcessorCount
        guard let status = try? String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) else { return machine }
        // "0-3,8,10-11"
        let allowed = line.dropFirst("Cpus_allowed_list:".count).split(separator: ",").reduce(0) { count, item in
            let bounds = item.trimmingCharacters(in: .whitespaces).split(separator: "-").compactMap { Int($0) }
            return count + (bounds.count == 2 ? bounds[1] - bounds[0] + 1 : bounds.count)
        }
        return allowed > 0 ? min(allowed, machine) : machine
    }
}
