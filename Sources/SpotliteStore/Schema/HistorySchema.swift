import Foundation
import GRDB

/// Spotlite's own tables, created once per database file and versioned in `spotlite_meta`.
enum HistorySchema {
    /// Bump with a migration in `install` whenever the tables or the triggers' output change shape.
    static let version = 1

    enum MetaKey {
        static let schemaVersion = "history_schema_version"
        static let storeID = "store_id"
        /// The highest token ever deleted from history.
        static let purgedThrough = "purged_through"
        /// The latest timestamp of a deleted transaction (for fetches after a date).
        static let purgedThroughTimestamp = "purged_through_timestamp"
        /// The highest change id left behind by the last write or seal through Spotlite (see
        /// `HistoryRecorder.repairPoisonedCurrentToken`).
        static let sealedThroughChange = "sealed_through_change"
    }

    /// Creates the tables when missing, or checks the version of existing ones. Returns the store ID.
    static func install(_ db: Database) throws -> String {
        if let found = try storedVersion(db) {
            guard found <= version else {
                throw StoreError.unsupportedHistorySchema(found: found, supported: version)
            }
            return try storeID(db)
        }
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS spotlite_meta ("key" TEXT PRIMARY KEY NOT NULL, value);
            CREATE TABLE IF NOT EXISTS spotlite_transaction (
                token INTEGER PRIMARY KEY AUTOINCREMENT,
                timestamp REAL NOT NULL,
                author TEXT,
                context TEXT,
                pid INTEGER);
            CREATE INDEX IF NOT EXISTS spotlite_transaction_timestamp ON spotlite_transaction(timestamp);
            CREATE TABLE IF NOT EXISTS spotlite_change (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                token INTEGER,
                entity TEXT NOT NULL,
                "key",
                type INTEGER NOT NULL,
                columns TEXT,
                tombstone TEXT,
                ts REAL);
            CREATE INDEX IF NOT EXISTS spotlite_change_token ON spotlite_change(token);
            CREATE TABLE IF NOT EXISTS spotlite_current (id INTEGER PRIMARY KEY CHECK (id = 1), token INTEGER);
            INSERT OR IGNORE INTO spotlite_current (id, token) VALUES (1, NULL);
            CREATE TABLE IF NOT EXISTS spotlite_position (
                author TEXT PRIMARY KEY NOT NULL,
                token INTEGER NOT NULL,
                timestamp REAL NOT NULL);
            """)
        try setMeta(db, MetaKey.schemaVersion, version)
        try setMeta(db, MetaKey.storeID, UUID().uuidString)
        return try storeID(db)
    }

    /// Checks that a file opened read-only already has the history tables. Returns the store ID.
    static func verify(_ db: Database, path: String) throws -> String {
        guard let found = try storedVersion(db) else { throw StoreError.notASpotliteStore(path: path) }
        guard found <= version else {
            throw StoreError.unsupportedHistorySchema(found: found, supported: version)
        }
        return try storeID(db)
    }

    static func storedVersion(_ db: Database) throws -> Int? {
        guard try db.tableExists("spotlite_meta") else { return nil }
        return try Int.fetchOne(db, sql: "SELECT value FROM spotlite_meta WHERE \"key\" = ?", arguments: [MetaKey.schemaVersion])
    }

    static func storeID(_ db: Database) throws -> String {
        try String.fetchOne(db, sql: "SELECT value FROM spotlite_meta WHERE \"key\" = ?", arguments: [MetaKey.storeID]) ?? ""
    }

    static func meta<Value: DatabaseValueConvertible>(_ db: Database, _ key: String, as type: Value.Type) throws -> Value? {
        try Value.fetchOne(db, sql: "SELECT value FROM spotlite_meta WHERE \"key\" = ?", arguments: [key])
    }

    static func setMeta(_ db: Database, _ key: String, _ value: some DatabaseValueConvertible) throws {
        try db.execute(
            sql: "INSERT INTO spotlite_meta (\"key\", value) VALUES (?, ?) ON CONFLICT(\"key\") DO UPDATE SET value = excluded.value",
            arguments: [key, value])
    }
}
