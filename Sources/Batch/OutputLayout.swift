import CapforgeCore
import Captions
import Foundation

/// Where a batch writes each input's outputs: next to the input, or mirrored under `--out`
/// keeping the relative folder structure. Names are made safe: they cannot escape the output
/// folder, carry control characters, or hide as dotfiles.
public struct OutputLayout: Sendable {
    /// `--out`, absolute; nil writes beside each input.
    public var outputRoot: URL?

    public init(outputRoot: URL?) {
        self.outputRoot = outputRoot?.standardizedFileURL
    }

    /// The folder an input's outputs go to.
    public func folder(for input: BatchInput) -> URL {
        guard let outputRoot else { return input.url.deletingLastPathComponent() }
        let components = input.relativePath.split(separator: "/").dropLast().map { Self.safeComponent(String($0)) }
        return components.reduce(outputRoot) { $0.appendingPathComponent($1) }
    }

    /// The input's name without extension, made safe for output names.
    public func stem(for input: BatchInput) -> String {
        Self.safeComponent(input.url.deletingPathExtension().lastPathComponent)
    }

    public func subtitle(for input: BatchInput, language: Language, format: SubtitleFormat) -> URL {
        OutputNaming.url(forVideo: folder(for: input).appendingPathComponent(stem(for: input) + ".video"), language: language, format: format)
    }

    /// `talk.captioned.mp4`.
    public func burned(for input: BatchInput) -> URL {
        folder(for: input).appendingPathComponent("\(stem(for: input))\(InputScanner.burnedMarker)mp4")
    }

    /// `talk.subtitled.mkv` (or `.mp4`): the input with subtitle tracks added.
    public func subtitled(for input: BatchInput, extension ext: String) -> URL {
        folder(for: input).appendingPathComponent("\(stem(for: input))\(InputScanner.subtitledMarker)\(ext)")
    }

    /// `talk.subtitled.mkv` beside a video named on the command line.
    public static func subtitled(_ video: URL, extension ext: String) -> URL {
        video.deletingLastPathComponent().appendingPathComponent("\(video.deletingPathExtension().lastPathComponent)\(InputScanner.subtitledMarker)\(ext)")
    }

    /// Whether `url` (links resolved) is where one of the input's outputs may go: its captions in
    /// any language and format (the language is not known before listening), or its burned or
    /// subtitled copy.
    public func mayWrite(_ url: URL, for input: BatchInput) -> Bool {
        let target = OutputPolicy.resolvedPath(url)
        guard Array(target.deletingLastPathComponent().path.utf8) == Array(OutputPolicy.resolvedPath(folder(for: input)).path.utf8) else { return false }
        let name = Array(target.lastPathComponent.utf8), stem = Array((stem(for: input) + ".").utf8)
        guard name.starts(with: stem) else { return false }
        let rest = String(decoding: name.dropFirst(stem.count), as: UTF8.self)
        let copies = [burned(for: input)] + ["mp4", "m4v", "mov", "mkv"].map { subtitled(for: input, extension: $0) }
        if copies.contains(where: { Array($0.lastPathComponent.utf8) == name }) { return true }
        // LANG.EXT, where an extension may have a dot of its own (ebu-tt-d.xml).
        return SubtitleFormats.all.contains { format in
            guard rest.hasSuffix("." + format.fileExtension) else { return false }
            let language = rest.dropLast(format.fileExtension.count + 1)
            return !language.isEmpty && !language.contains(".")
        }
    }

    /// Where the manifest and journals live: `.capforge/` at the top of the tree being written.
    public func stateFolder(for input: BatchInput) -> StateFolder {
        StateFolder(tree: (outputRoot ?? input.root).appendingPathComponent(".capforge"))
    }

    /// Replaces what cannot safely be part of a file name: path separators, `.`/`..`, control
    /// characters (newlines), undecodable bytes, and a leading dot.
    static func safeComponent(_ name: String) -> String {
        var safe = String(name.unicodeScalars.map { scalar -> Character in
            let bad = scalar == "/" || scalar == "\u{FFFD}" || scalar.properties.generalCategory == .control
                || scalar.properties.generalCategory == .format || scalar.value == 0x7F
            return bad ? "_" : Character(scalar)
        })
        if safe.isEmpty || safe == "." || safe == ".." { safe = "_" }
        if safe.hasPrefix(".") { safe = "_" + safe.dropFirst() }
        return safe
    }
}
