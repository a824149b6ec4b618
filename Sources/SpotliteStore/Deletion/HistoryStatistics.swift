import Foundation
import GRDB

/// The size of a store's history.
public struct HistoryStatistics: Sendable, Hashable {
    /// Transactions the store still holds.
    public var transactions: Int
    /// Changes those transactions hold.
    public var changes: Int
    /// The oldest transaction kept; nil when history is empty.
    public var oldestToken: HistoryToken?
    /// The newest transaction; nil when history is empty.
    public var newestToken: HistoryToken?
    /// Bytes the history tables and their indexes take in the database file.
    public var bytes: Int
}

extension SpotliteStore {
    /// Counts the history's transactions and changes and measures its size on disk.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func historyStatistics() throws -> HistoryStatistics {
        _ = try sealPendingChanges()
        return try databasePool.read { db in
            let transactions = try Int.fetchOne(db, sql: "SELECT count(*) FROM spotlite_transaction") ?? 0
            // Every row but keepers: a count of the table's pages and of the partial index, no scan of the rows.
            let changes = try Int.fetchOne(db, sql: """
                SELECT (SELECT count(*) FROM spotlite_change) - (SELECT count(*) FROM spotlite_change WHERE \(ChangeIDKeeper.isKeeper))
                """) ?? 0
            let oldest = try HistoryToken.fetchOne(db, sql: "SELECT min(token) FROM spotlite_transaction")
            let newest = try HistoryToken.fetchOne(db, sql: "SELECT max(token) FROM spotlite_transaction")
            return HistoryStatistics(transactions: transactions, changes: changes, oldestToken: oldest,
                                     newestToken: newest, bytes: try Self.historyBytes(db))
        }
    }

    /// Pages used by the history tables and indexes (the `dbstat` table when SQLite has it, else an estimate from
    /// the stored values).
    private static func historyBytes(_ db: Database) throws -> Int {
        if let bytes = try? Int.fetchOne(db, sql: """
            SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'spotlite\\_%' ESCAPE '\\'
               OR name IN (SELECT name FROM sqlite_master WHERE tbl_name LIKE 'spotlite\\_%' ESCAPE '\\')
            """) {
            return bytes
        }
        let transactionBytes = try Int.fetchOne(db, sql: "SELECT sum(24 + ifnull(length(author),0) + ifnull(length(context),0)) FROM spotlite_transaction") ?? 0
        let changeBytes = try Int.fetchOne(db, sql: "SELECT sum(32 + length(entity) + ifnull(length(key),0) + ifnull(length(columns),0) + ifnull(length(tombstone),0)) FROM spotlite_change") ?? 0
        return transactionBytes + changeBytes
    }
}
