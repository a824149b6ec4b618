import Foundation
import SpotliteStore

/// Where an index stands against its store: the shape of `spotlite index status --json`.
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

    /// Reads the status without taking the writer lock: it works while an indexer runs.
    public init(store: SpotliteStore, configuration: SpotliteConfiguration, indexPath: String? = nil) throws {
        let schema = try IndexSchema(configuration: configuration)
        index = indexPath ?? configuration.indexPath
        let directory = IndexDirectory(path: index)
        configurationFingerprint = schema.fingerprint
        storeToken = try store.currentToken()
        oldestHistoryToken = try store.oldestToken()
        checkpoints = try store.positions()
        if let layout = directory.liveLayout(), layout.isPlaced {
            do {
                let database = try layout.openCombined().database
                let metadata = try IndexMetadata(reading: database.metadata(forKey:))
                exists = true
                documents = try database.documentCount()
                token = try layout.committedToken()
                fingerprint = metadata.fingerprint
                updatedAt = metadata.updatedAt
            } catch let error as XapianError {
                throw SearchError.reading(error, path: index)
            }
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
            } catch let error as XapianError {
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
            do {
                pendingTransactions = try store.countHistory(HistoryRequest.after(token))
            } catch is HistoryError {
                // History after the index's token was purged: the next update rebuilds; count what is there.
                pendingTransactions = try store.countHistory(HistoryRequest.allRetained)
            }
        } else {
            pendingTransactions = try store.countHistory(HistoryRequest.allRetained)
        }
    }

    /// The JSON object of `spotlite index status --json`.
    public var jsonObject: [String: Any] {
        [
            "index": index,
            "documents": documents,
            "token": token?.rawValue ?? 0,
            "store_token": storeToken?.rawValue ?? 0,
            "pending_transactions": pendingTransactions,
            "oldest_history_token": oldestHistoryToken.map { $0.rawValue as Any } ?? NSNull(),
            "fingerprint": fingerprint ?? configurationFingerprint,
            "checkpoints": checkpoints.map { position in
                ["author": position.author, "token": position.token.rawValue,
                 "timestamp": ISO8601.string(from: position.timestamp)] as [String: Any]
            },
        ]
    }
}
