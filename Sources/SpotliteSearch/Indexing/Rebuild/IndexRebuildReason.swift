import SpotliteStore

/// Why an index is rebuilt from the store's rows instead of updated from history.
///
/// ``IndexStatus/rebuildCause`` says it before the update; its ``description`` is what the command line and
/// ``IndexUpdateSummary/reason`` print.
public enum IndexRebuildReason: Sendable, Hashable, CustomStringConvertible {
    /// There is no index yet.
    case noIndex
    /// The configuration places the shards at `locations` servers, the index keeps them in its directory.
    case shardsPlaced(locations: Int)
    /// The configuration keeps the shards in the index directory, the index has them at locations.
    case shardsInDirectory
    /// The configured shard locations differ from the index's.
    case shardLocationsChanged(index: [String], configured: [String])
    /// The index is one Xapian database, written before indexes were sharded; it becomes `shards` shards.
    case singleDatabase(shards: Int)
    /// The index cannot be read; `detail` says what failed.
    case unreadable(detail: String)
    /// The configured shard count differs from the index's.
    case shardCountChanged(index: Int, configured: Int)
    /// A shard says it is another one of its index (`found`, as `NUMBER/COUNT`).
    case misplacedShard(number: Int, found: String?, expected: String)
    /// The shards were built from different stores or configurations.
    case mixedShards
    /// The index was built from another store.
    case anotherStore(index: String?, store: String)
    /// The index was written in a format this version does not update.
    case anotherFormat(index: String?, current: String)
    /// The store was migrated to another model version since the index was built.
    case modelVersionChanged(index: String?, store: String?)
    /// History capture was broken in the store (`count` times; `detail` says how, when the store knows).
    case captureGap(count: Int, detail: String?)
    /// The indexing configuration (fields, language, stopwords) changed.
    case configurationChanged(index: String?, current: String)
    /// The index reflects a token the store has not reached: the store was re-created.
    case aheadOfStore(index: HistoryToken, store: HistoryToken?)
    /// The pending history would cost more to apply than a rebuild.
    case largeBacklog(IndexBacklog)
    /// The history after `requested` was deleted (through `purgedThrough`, when known) before the index read it.
    case historyDeleted(requested: HistoryToken?, purgedThrough: HistoryToken?)
    /// Xapian found a table damaged (`detail`: the engine's words).
    case damaged(detail: String)
    /// An app or a person asked, for this reason.
    case requested(String)

    /// The reason in words, for the summary, the status and the logs.
    public var description: String {
        switch self {
        case .noIndex:
            return "there is no index yet"
        case .shardsPlaced(let locations):
            return "the configuration places the shards at \(locations) location\(locations == 1 ? "" : "s") instead of the index directory"
        case .shardsInDirectory:
            return "the configuration keeps the shards in the index directory instead of at their locations"
        case .shardLocationsChanged(let index, let configured):
            return "the configured shard locations changed (the index has \(index.joined(separator: ", ")), the configuration asks for \(configured.joined(separator: ", ")))"
        case .singleDatabase(let shards):
            return "the index is one database written by an earlier version of Spotlite; rebuilding it as \(shards) shards"
        case .unreadable(let detail):
            return "the index could not be read (\(detail))"
        case .shardCountChanged(let index, let configured):
            return "the configured shard count changed (the index has \(index), the configuration asks for \(configured))"
        case .misplacedShard(let number, let found, let expected):
            return "the index's shard \(number) is not the one it should be (it says \(found ?? "nothing"), expected \(expected))"
        case .mixedShards:
            return "the index's shards were built from different stores or configurations"
        case .anotherStore(let index, let store):
            return "the index was built from another store (store id \(index ?? "none"), this store is \(store))"
        case .anotherFormat(let index, let current):
            return "the index was written by another version of Spotlite (index format \(index ?? "none"), this version writes \(current))"
        case .modelVersionChanged(let index, let store):
            return "the store was migrated to another model version (\(index ?? "none") is now \(store ?? "none"))"
        case .captureGap(let count, let detail):
            return detail ?? "history capture was broken in the store (gap \(count))"
        case .configurationChanged(let index, let current):
            return "the indexing configuration changed (fields, language or stopwords: fingerprint \(index ?? "none") is now \(current))"
        case .aheadOfStore(let index, let store):
            return "the index is ahead of the store (token \(index) > \(store.map { "\($0)" } ?? "none")): the store was re-created"
        case .largeBacklog(let backlog):
            return backlog.description
        case .historyDeleted(let requested, let purgedThrough):
            let through = purgedThrough.map { " (through token \($0))" } ?? ""
            return "the history after token \(requested.map { "\($0)" } ?? "0") was deleted\(through) before the index consumed it"
        case .damaged(let detail):
            return "the index is damaged (\(detail))"
        case .requested(let reason):
            return reason
        }
    }
}

/// Pending history that outweighs a rebuild (``IndexRebuildReason/largeBacklog(_:)``).
public struct IndexBacklog: Sendable, Hashable, CustomStringConvertible {
    /// Inserts, updates and deletes that change documents.
    public var changes: Int
    /// Of ``changes``, updates of stored, number or date columns alone (each weighs a quarter).
    public var valuesOnly: Int
    /// Of ``changes``, the deletes.
    public var deletes: Int
    /// The documents a rebuild would write.
    public var rebuildDocuments: Int
    /// The documents in the index now.
    public var indexDocuments: Int
    /// The share of the documents past which the changes rebuild (1 = as many changes as documents).
    public var share: Double

    /// A backlog, as the rebuild policy weighed it.
    public init(changes: Int, valuesOnly: Int, deletes: Int, rebuildDocuments: Int, indexDocuments: Int, share: Double) {
        self.changes = changes
        self.valuesOnly = valuesOnly
        self.deletes = deletes
        self.rebuildDocuments = rebuildDocuments
        self.indexDocuments = indexDocuments
        self.share = share
    }

    public var description: String {
        let line = share == 1 ? "outnumber the" : "are more than \(Int(share * 100))% of the"
        let kinds = deletes == 0 ? "inserts and updates" : "inserts, updates and deletes"
        var text = "\(GroupedNumber.text(changes)) pending \(kinds)"
        if valuesOnly > 0 {
            text += " (\(GroupedNumber.text(valuesOnly)) of them of stored, number or date fields alone, each counted as a quarter)"
        }
        let target = rebuildDocuments == indexDocuments ? "" : " a rebuild would write"
        return "\(text) \(line) \(GroupedNumber.text(rebuildDocuments)) documents\(target): a rebuild is faster than applying them one by one"
    }
}
