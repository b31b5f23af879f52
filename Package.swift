// swift-tools-version:6.0
import PackageDescription

import Foundation

// Where Scripts/setup unpacks the engine libraries shipped in PyPI wheels. They are opened with
// dlopen (a machine without them still runs the basic tier), found through the binary's run
// path, which pkg-config cannot carry through SwiftPM: the root package passes it to the linker.
let depsLib = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(".deps/lib").path
// Scripts/install sets this to '$ORIGIN/../lib/capforge': the installed binary then finds the
// engine libraries beside itself, wherever the prefix is moved, and nothing in the checkout.
let installedRunPath = ProcessInfo.processInfo.environment["CAPFORGE_INSTALL_RPATH"]
let engineLinkerSettings: [LinkerSetting] = ["whisper", "vosk"].flatMap { name -> [LinkerSetting] in
    let dir = "\(depsLib)/\(name)"
    return [.unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", installedRunPath ?? dir])]
}

let package = Package(
    name: "Capforge",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "capforge", targets: ["capforge"]),
    ],
    targets: [
        // C shims: one system-library target per C dependency.
        .systemLibrary(
            name: "CFFmpeg", path: "Sources/CFFmpeg", pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswresample-dev", "libswscale-dev", "libavutil-dev"])]),
        .systemLibrary(
            name: "CLibass", path: "Sources/CLibass", pkgConfig: "libass",
            providers: [.apt(["libass-dev"])]),
        .systemLibrary(
            name: "CFontconfig", path: "Sources/CFontconfig", pkgConfig: "fontconfig",
            providers: [.apt(["libfontconfig-dev"])]),
        .systemLibrary(name: "CDNNL", path: "Sources/CDNNL", providers: [.apt(["libdnnl-dev"])]),
        .systemLibrary(
            name: "CPocketSphinx", path: "Sources/CPocketSphinx", pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev", "libsphinxbase-dev"])]),

        // Engines from PyPI wheels ship no header: the project writes its own for the subset it
        // calls, bound with dlsym when the library is first needed.
        .systemLibrary(name: "CWhisper", path: "Sources/CWhisper"),
        .systemLibrary(name: "CVosk", path: "Sources/CVosk"),
        // Debian's libicuuc, for word segmentation: opened the same way (see cicu.h for why).
        .systemLibrary(name: "CICU", path: "Sources/CICU"),

        // Plain value types shared by every layer.
        // Optimised even in debug builds: hashing models and inputs is 200× slower unoptimised.
        .target(name: "CapforgeCore", swiftSettings: [.unsafeFlags(["-O"])]),

        .target(name: "Arguments"),
        .target(name: "Media", dependencies: ["CapforgeCore", "CFFmpeg"]),
        .target(name: "Burn", dependencies: ["CapforgeCore", "Media", "Captions", "CLibass", "CFontconfig"]),
        .target(name: "Captions", dependencies: ["CapforgeCore", "CICU"]),
        // Capforge's own Whisper runtime over oneDNN's matrix products. Optimised even in debug
        // builds, like CapforgeCore: its loops are the model's arithmetic.
        .target(name: "WhisperRuntime", dependencies: ["CDNNL"], swiftSettings: [.unsafeFlags(["-O"])]),
        .target(
            name: "Speech", dependencies: ["CapforgeCore", "CPocketSphinx", "CWhisper", "CVosk", "WhisperRuntime"],
            linkerSettings: engineLinkerSettings),
        .target(name: "Batch", dependencies: ["CapforgeCore", "Media", "Burn", "Speech", "Captions"]),
        .executableTarget(name: "capforge", dependencies: ["Arguments", "CapforgeCore", "Media", "Burn", "Speech", "Captions", "Batch"]),

        // Benchmarks/whisper-runtime: the runtime against libwhisper window by window.
        .executableTarget(
            name: "whisper-runtime-bench", dependencies: ["CapforgeCore", "Speech", "WhisperRuntime"], path: "Benchmarks/WhisperRuntimeBench"),

        // Helpers shared by several test targets.
        .target(name: "TestSupport", dependencies: ["CapforgeCore"], path: "Tests/TestSupport"),
        .testTarget(name: "ArgumentsTests", dependencies: ["Arguments"]),
        .testTarget(name: "CapforgeCoreTests", dependencies: ["CapforgeCore"]),
        .testTarget(name: "MediaTests", dependencies: ["Media", "CapforgeCore", "TestSupport"]),
        .testTarget(name: "BurnTests", dependencies: ["Burn", "Media", "CapforgeCore", "Captions", "TestSupport"]),
        .testTarget(name: "CaptionsTests", dependencies: ["Captions", "CapforgeCore", "CLibass", "TestSupport"]),
        .testTarget(name: "BatchTests", dependencies: ["Batch", "CapforgeCore", "Speech", "Media", "Burn", "Captions", "capforge", "TestSupport"]),
        .testTarget(name: "WhisperRuntimeTests", dependencies: ["WhisperRuntime"]),
        .testTarget(name: "SpeechTests", dependencies: ["Speech", "CapforgeCore", "CWhisper", "TestSupport", "Media", "WhisperRuntime"]),
    ],
    swiftLanguageModes: [.v6]
)
