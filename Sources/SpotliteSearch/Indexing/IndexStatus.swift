import Foundation
import SpotliteStore

/// Where an index stands against its store: what `spotlite index status` shows.
public struct IndexStatus: Sendable, Hashable {
    /// The index directory.
    public var index: String
    /// Whether a live index exists.
    public var exists: Bool
    /// Documents in the live index.
    public var documents: Int
    /// The history token the index reflects.
    public var token: HistoryToken?
    /// The store's newest token.
    public var storeToken: HistoryToken?
    /// Transactions committed after the index's token.
    public var pendingTransactions: Int
    /// When the oldest of the ``pendingTransactions`` was committed: how far the index lags the store (nil when
    /// none is pending, or when history after the index's token was deleted).
    public var oldestPendingDate: Date?
    /// The oldest transaction the store still keeps; nil when its history is empty.
    public var oldestHistoryToken: HistoryToken?
    /// The fingerprint the index was built with (nil without an index).
    public var fingerprint: String?
    /// The fingerprint the current configuration asks for.
    public var configurationFingerprint: String
    /// Every author's saved position in the store, the indexer's included.
    public var checkpoints: [HistoryPosition]
    /// When the index was last committed.
    public var updatedAt: Date?
    /// Every shard placed at a location (`shards = ["tcp://HOST:PORT", …]`), in order, with what it holds or why it
    /// cannot be read; empty for shards in the index directory. When a shard cannot be reached, the status still
    /// answers: that shard carries the problem, ``documents`` counts the others, ``token`` is nil (the index's token
    /// is the smallest of the shards') and ``pendingTransactions`` counts from the indexer's position in the store.
    public var shards: [ShardStatus] = []
    /// Why the next update will rebuild the index rather than apply the pending history (the configuration changed,
    /// the index was written by another version, history it needs was deleted, …); nil when it applies the history.
    /// Filled by ``SpotliteIndexer/status()``, which knows every reason; this initializer knows only that history was
    /// deleted, or that there is no index.
    public var rebuildCause: IndexRebuildReason?
    /// ``rebuildCause`` in words, as `spotlite index status` prints it.
    public var rebuildReason: String? { rebuildCause?.description }

    /// The shards that could not be read, by name (`HOST:PORT`).
    public var unavailableShards: [String] { shards.filter { !$0.isAvailable }.map(\.name) }

    /// Reads the status without taking the writer lock: it works while an indexer runs.
    ///
    /// - Throws: ``SearchError/indexCorrupt(path:reason:)`` when the index cannot be read;
    ///   ``SearchError/engine(_:outcome:)`` for other engine failures; SQLite's errors.
    public init(store: SpotliteStore, configuration: SpotliteConfiguration, indexPath: String? = nil) throws {
        let schema = try IndexSchema(configuration: configuration)
        index = indexPath ?? configuration.indexPath
        let directory = IndexDirectory(path: index, remote: configuration.remote)
        configurationFingerprint = schema.fingerprint
        storeToken = try store.currentToken()
        oldestHistoryToken = try store.oldestToken()
        checkpoints = try store.positions()
        var tokenKnown = true
        if let layout = directory.liveLayout(), layout.isPlaced {
            var metadata: IndexMetadata?
            for shard in 0..<layout.count {
                var status = ShardStatus(name: layout.shardName(shard), location: layout.locations?[shard].description)
                do {
                    let database = try layout.openReader(shard)
                    let shardMetadata = try IndexMetadata(reading: database.metadata(forKey:))
                    status.documents = try database.documentCount()
                    status.token = shardMetadata.token.flatMap { $0.rawValue > 0 ? $0 : nil }
                    metadata = metadata ?? shardMetadata
                } catch {
                    guard let named = ShardLayout.naming(error, shard: status.name) as? SearchError else { throw error }
                    switch named {
                    case .shardUnavailable, .shardIdentityChanged: status.problem = named
                    case let .engine(failure, nil): throw SearchError.reading(failure, path: index)
                    default: throw named
                    }
                }
                shards.append(status)
            }
            exists = true
            documents = shards.compactMap(\.documents).reduce(0, +)
            tokenKnown = !shards.contains { !$0.isAvailable }
            let tokens = shards.map { $0.token?.rawValue ?? 0 }
            token = tokenKnown && (tokens.min() ?? 0) > 0 ? HistoryToken(rawValue: tokens.min()!) : nil
            fingerprint = metadata?.fingerprint
            updatedAt = metadata?.updatedAt
        } else if let generation = directory.liveGeneration {
            do {
                let generationPath = directory.generationPath(generation)
                let database = try XapianDatabase(path: generationPath)
                let metadata = try IndexMetadata(reading: database.metadata(forKey:))
                exists = true
                documents = try database.documentCount()
                // Each shard commits its own token; the index reflects the history up to the smallest.
                if let layout = ShardLayout.read(generationPath: generationPath) {
                    token = try layout.committedToken()
                } else {
                    token = metadata.token.flatMap { $0.rawValue > 0 ? $0 : nil }
                }
                fingerprint = metadata.fingerprint
                updatedAt = metadata.updatedAt
            } catch SearchError.engine(let error, nil) {
                throw SearchError.reading(error, path: index)
            }
        } else {
            exists = false
            documents = 0
            token = nil
            fingerprint = nil
            updatedAt = nil
        }
        if exists {
            // With a shard unreadable, the indexer's position is what every shard is known to have committed.
            let from = tokenKnown ? token : checkpoints.first { $0.author == configuration.indexer.author }?.token
            do {
                pendingTransactions = try store.countHistory(HistoryRequest.after(from))
                if pendingTransactions > 0 {
                    let page = try store.fetchHistory(after: HistoryCursor(token: from), maximumChanges: 1)
                    oldestPendingDate = page.transactions.first?.timestamp
                }
            } catch let error as SpotliteStoreError where error.area == .history {
                // History after the index's token was purged: the next update rebuilds; count what is there.
                pendingTransactions = try store.countHistory(HistoryRequest.allRetained)
                rebuildCause = .historyDeleted(requested: from, purgedThrough: nil)
            }
        } else {
            pendingTransactions = try store.countHistory(HistoryRequest.allRetained)
            rebuildCause = .noIndex
        }
    }
}
