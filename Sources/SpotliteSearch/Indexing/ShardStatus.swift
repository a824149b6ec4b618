import SpotliteStore

/// One shard of an index as `spotlite index status` shows it: where it is, what it holds, or why it cannot be read.
public struct ShardStatus: Sendable, Hashable {
    /// How errors name the shard: `HOST:PORT` of a remote shard, else its path.
    public var name: String
    /// The location as the configuration writes it (`tcp://HOST:PORT` or a path); nil for the `shard-K` directories
    /// of a local generation.
    public var location: String?
    /// Documents in the shard; nil when it cannot be read.
    public var documents: Int?
    /// The history token the shard has committed; nil when it has none or cannot be read.
    public var token: HistoryToken?
    /// Why the shard cannot be read: ``SearchError/shardUnavailable(shard:reason:)`` (unreachable, past its
    /// timeout) or ``SearchError/shardIdentityChanged(shard:expected:found:)`` (another database); nil when it can.
    public var problem: SearchError?

    /// Whether the shard answered.
    public var isAvailable: Bool { problem == nil }
}
