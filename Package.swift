// swift-tools-version:6.0
import PackageDescription

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
            name: "CPocketSphinx", path: "Sources/CPocketSphinx", pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev", "libsphinxbase-dev"])]),

        // Plain value types shared by every layer.
        .target(name: "CapforgeCore"),

        .target(name: "Media", dependencies: ["CapforgeCore", "CFFmpeg"]),
        .target(name: "Captions", dependencies: ["CapforgeCore"]),
        .target(name: "Speech", dependencies: ["CapforgeCore"]),
        .target(name: "Batch", dependencies: ["CapforgeCore", "Media", "Speech", "Captions"]),
        .executableTarget(name: "capforge", dependencies: ["CapforgeCore", "Media", "Speech", "Captions", "Batch"]),

        .testTarget(name: "CapforgeCoreTests", dependencies: ["CapforgeCore"]),
        .testTarget(name: "MediaTests", dependencies: ["Media", "CapforgeCore"]),
    ],
    swiftLanguageModes: [.v6]
)
