/// `--shard I/N`: a deterministic, stable partition of a batch by relative path, so that an
/// external scheduler (Slurm array, Kubernetes indexed Job, GNU parallel) can spread one batch
/// over machines sharing an output tree.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// 1-based, as schedulers number array tasks.
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) {
        precondition(count >= 1 && (1...count).contains(index))
        self.index = index
        self.count = count
    }

    /// Parses "I/N"; nil when malformed or out of range.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(i) else { return nil }
        self.init(index: i, count: n)
    }

    public var description: String { "\(index)/\(count)" }

    public func contains(_ relativePath: String) -> Bool {
        Int(Self.fnv1a(relativePath) % UInt64(count)) == index - 1
    }

    /// FNV-1a over the UTF-8 bytes: the same on every machine and Swift version (unlike `hashValue`).
    static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }
}
