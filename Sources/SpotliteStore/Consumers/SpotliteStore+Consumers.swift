import Foundation
import GRDB

extension SpotliteStore {
    /// Registers `name` as a consumer of this store's history: every cleanup, in any process, waits for its
    /// position as for a required author, until ``unregisterConsumer(_:)``. When it has no position yet, it is
    /// saved at `position` (nil: none yet, and cleanup keeps everything for it until
    /// ``HistoryDeletionPolicy/maximumDuration``). Registering again changes nothing.
    ///
    /// ``HistoryConsumerDriver`` and the search indexer register themselves; call this for a consumer that runs
    /// its own loop over ``fetchHistory(_:)``.
    ///
    /// - Throws: ``SpotliteStoreError/readOnlyStore(operation:)`` on a read-only store; SQLite's errors (GRDB's
    ///   `DatabaseError`).
    public func registerConsumer(_ name: String, position: HistoryToken? = nil) throws {
        guard !options.readOnly else { throw SpotliteStoreError.readOnlyStore(operation: .registerConsumer) }
        try databasePool.write { db in
            try ConsumerRegistry.register(name, now: Date(), in: db)
            if let position, try PositionTable.position(of: name, in: db) == nil {
                try Self.checkIssued(position, in: db)
                try PositionTable.set(position, for: name, timestamp: Date(), in: db)
            }
        }
    }

    /// Saves `token` as the position of the consumer `name` and registers it if it is not, in one transaction.
    ///
    /// - Throws: ``SpotliteStoreError/unknownToken(requested:current:)`` when the store never issued `token`.
    public func saveConsumerPosition(_ token: HistoryToken, for name: String, timestamp: Date = Date()) throws {
        guard !options.readOnly else { throw SpotliteStoreError.readOnlyStore(operation: .savePosition) }
        try databasePool.write { db in
            try Self.checkIssued(token, in: db)
            try ConsumerRegistry.register(name, now: timestamp, in: db)
            try PositionTable.set(token, for: name, timestamp: timestamp, in: db)
        }
    }

    /// Forgets the consumer `name`: its registration and its position, so cleanup stops waiting for it at once.
    ///
    /// - Throws: ``SpotliteStoreError/readOnlyStore(operation:)`` on a read-only store; SQLite's errors (GRDB's
    ///   `DatabaseError`).
    public func unregisterConsumer(_ name: String) throws {
        guard !options.readOnly else { throw SpotliteStoreError.readOnlyStore(operation: .unregisterConsumer) }
        try databasePool.write { db in try ConsumerRegistry.unregister(name, in: db) }
    }

    /// The names of the registered consumers, sorted.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func registeredConsumers() throws -> [String] {
        try databasePool.read { db in try ConsumerRegistry.names(in: db) }
    }

    static func checkIssued(_ token: HistoryToken, in db: Database) throws {
        let current = try HistoryRecorder.currentToken(db)
        guard token <= (current ?? HistoryToken(0)) else {
            throw SpotliteStoreError.unknownToken(requested: token, current: current)
        }
    }
}
