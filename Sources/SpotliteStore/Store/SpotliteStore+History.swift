import Foundation
import GRDB

extension SpotliteStore {
    /// The token of the newest transaction: every change so far is at or before it.
    /// Seals pending foreign changes first (unless read-only), so they are counted.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func currentToken() throws -> HistoryToken? {
        try sealIfNeeded()
        return try databasePool.read(HistoryRecorder.currentToken)
    }

    /// The token of the oldest transaction still retained; nil when history is empty.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func oldestToken() throws -> HistoryToken? {
        try databasePool.read(HistoryRecorder.oldestToken)
    }

    /// The transactions the request selects, oldest first, each with its selected changes.
    ///
    /// - Throws: ``SpotliteStoreError/expiredToken(requested:purgedThrough:)`` or
    ///   ``SpotliteStoreError/expiredDate(requested:purgedThrough:)`` when history the request starts from was
    ///   deleted, ``SpotliteStoreError/unknownToken(requested:current:)`` for a token this store never issued.
    public func fetchHistory(_ request: HistoryRequest) throws -> [HistoryTransaction] {
        let query = try HistoryQuery(request, rangesKnownKept: rangesKeptSinceOpen)
        try sealIfNeeded()
        return try databasePool.read(query.transactions)
    }

    /// The changes the request selects, oldest first; `limit` counts changes.
    ///
    /// - Throws: ``SpotliteStoreError`` when the request starts from deleted history or from a token this store never
    ///   issued; SQLite's errors.
    public func fetchChanges(_ request: HistoryRequest) throws -> [HistoryChange] {
        let query = try HistoryQuery(request, rangesKnownKept: rangesKeptSinceOpen)
        try sealIfNeeded()
        return try databasePool.read(query.changes)
    }

    /// How many transactions ``fetchHistory(_:)`` would return.
    ///
    /// - Throws: ``SpotliteStoreError`` when the request starts from deleted history or from a token this store never
    ///   issued; SQLite's errors.
    public func countHistory(_ request: HistoryRequest) throws -> Int {
        let query = try HistoryQuery(request, rangesKnownKept: rangesKeptSinceOpen)
        try sealIfNeeded()
        return try databasePool.read(query.transactionCount)
    }

    /// How many changes ``fetchChanges(_:)`` would return.
    ///
    /// - Throws: ``SpotliteStoreError`` when the request starts from deleted history or from a token this store never
    ///   issued; SQLite's errors.
    public func countChanges(_ request: HistoryRequest) throws -> Int {
        let query = try HistoryQuery(request, rangesKnownKept: rangesKeptSinceOpen)
        try sealIfNeeded()
        return try databasePool.read(query.changeCount)
    }

    /// Deletes the transactions the request selects, with their changes, and returns how many (with `dryRun`,
    /// only counts them). Consumers positioned before deleted history get an expiry error on their next fetch.
    ///
    /// - Throws: ``SpotliteStoreError/readOnlyStore(operation:)`` on a read-only store; SQLite's errors (GRDB's
    ///   `DatabaseError`).
    @discardableResult
    public func deleteHistory(_ request: HistoryDeleteRequest, dryRun: Bool = false) throws -> Int {
        if dryRun {
            return try databasePool.read { db in try HistoryPurger.delete(request, dryRun: true, in: db) }
        }
        guard !options.readOnly else { throw SpotliteStoreError.readOnlyStore(operation: .deleteHistory) }
        return try databasePool.writeWithoutTransaction { db in
            var count = 0
            try db.inTransaction(.immediate) {
                count = try HistoryPurger.delete(request, dryRun: false, in: db)
                return .commit
            }
            return count
        }
    }

    /// Gives changes made by programs that do not use Spotlite an unattributed transaction now, and returns its
    /// token (nil when none were waiting). Spotlite also does this by itself before each write and fetch.
    ///
    /// - Throws: ``SpotliteStoreError/readOnlyStore(operation:)`` on a read-only store; SQLite's errors (GRDB's
    ///   `DatabaseError`).
    @discardableResult
    public func sealPendingChanges() throws -> HistoryToken? {
        guard !options.readOnly else { throw SpotliteStoreError.readOnlyStore(operation: .sealPendingChanges) }
        let token = try databasePool.writeWithoutTransaction { db in
            var token: HistoryToken?
            try db.inTransaction(.immediate) {
                token = try HistoryRecorder.sealPendingChanges(db)
                return .commit
            }
            return token
        }
        if let token { hub.post(token) }
        return token
    }

    /// Whether changes by other programs wait to be sealed into a transaction.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func hasPendingChanges() throws -> Bool {
        try databasePool.read(HistoryRecorder.hasPendingChanges)
    }

    func sealIfNeeded() throws {
        guard !options.readOnly, try hasPendingChanges() else { return }
        try sealPendingChanges()
    }

    /// `sealIfNeeded()` through GRDB's async APIs (see `fetchPageAsynchronously(_:)`).
    func sealIfNeededAsynchronously() async throws {
        guard !options.readOnly, try await databasePool.read(HistoryRecorder.hasPendingChanges) else { return }
        let token = try await databasePool.writeWithoutTransaction { db in
            var token: HistoryToken?
            try db.inTransaction(.immediate) {
                token = try HistoryRecorder.sealPendingChanges(db)
                return .commit
            }
            return token
        }
        if let token { hub.post(token) }
    }
}
