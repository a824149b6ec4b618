/// The top-level `shards` key: how many Xapian databases the index is split into.
///
/// Documents are spread over the shards by a stable hash of their entity and key; a rebuild writes every shard on a
/// thread of its own, and searches open the shards as one database, so ranking is the same as with one.
public enum IndexShards: Sendable, Hashable {
    /// Absent from the file: keep the existing index's count; a new index gets one shard per core, up to four.
    case automatic
    /// This many local shards (1 to ``maximumCount``); an index with another count is rebuilt.
    case count(Int)

    /// The most shards an index may have.
    public static let maximumCount = 64

    /// The configured count, or nil for ``automatic``.
    public var count: Int? {
        if case let .count(count) = self { return count }
        return nil
    }
}
