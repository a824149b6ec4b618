/// What ``SpotliteIndexer/deleteIndex(keepingPlacedShards:)`` removed.
public struct IndexDeletion: Sendable, Hashable {
    /// Whether there was an index to delete (a live generation or a shard map).
    public var hadIndex: Bool
    /// The shards placed at locations that were emptied through their servers (or paths), by name (`HOST:PORT`).
    public var emptiedShards: [String] = []
    /// The documents deleted from those shards.
    public var documentsDeleted = 0
}
