/// One of N parts of the suite's cases, for running a suite across CI jobs (`--shard I/N`).
///
/// The split is deterministic and depends only on the case IDs: the selected cases are ordered by the
/// SHA-256 of their ID (then the ID) and dealt round-robin, so shard sizes differ by at most one case and
/// every case is in exactly one shard. `merge` joins the shards' reports into the report of the whole run.
public struct Shard: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 1-based.
    public let index: Int
    public let count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses `I/N`, for example `2/4`.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// The IDs of `caseIDs` that belong to this shard.
    public func select(_ caseIDs: [String]) -> Set<String> {
        let ordered = caseIDs.map { (key: SHA256.hash(Array($0.utf8)), id: $0) }.sorted { lhs, rhs in
            lhs.key == rhs.key ? lhs.id < rhs.id : lhs.key.lexicographicallyPrecedes(rhs.key)
        }
        return Set(ordered.enumerated().filter { $0.offset % count == index - 1 }.map(\.element.id))
    }
}
