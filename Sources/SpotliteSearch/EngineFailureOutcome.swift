/// What an engine failure left behind (``SearchError/engine(_:outcome:)``), when the indexer knows it: what the
/// index holds now, and whether anything changed.
public enum EngineFailureOutcome: Sendable, Hashable, CustomStringConvertible {
    /// An update gave up: the index holds what it last committed; `nextUpdateRetries` when replaying the batch
    /// failed every time and the next update replays it again.
    case indexAtLastCommit(nextUpdateRetries: Bool)
    /// Deleting the index could not open `shard` to empty it: nothing was deleted, on any shard.
    case nothingDeleted(shard: String)
    /// A rebuild into a new generation failed: the index in use is unchanged.
    case rebuildDiscarded
    /// A rebuild in place (into placed shards) failed: each shard keeps its last committed token.
    case inPlaceRebuildStopped

    /// What it left, in words.
    public var description: String {
        switch self {
        case let .indexAtLastCommit(retries):
            return "the index stays at its last committed token" + (retries ? "; the next update retries" : "")
        case let .nothingDeleted(shard):
            return "while opening shard \(shard) to empty it; nothing was deleted"
        case .rebuildDiscarded:
            return "while rebuilding the index; the index in use is unchanged"
        case .inPlaceRebuildStopped:
            return "while rebuilding the index in place; the shards keep their last committed token"
        }
    }
}
