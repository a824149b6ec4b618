import Foundation
import GRDB

/// Spotlite's own tables, created once per database file and versioned in `spotlite_meta`.
enum HistorySchema {
    /// Bump with a migration in `install` whenever the tables or the triggers' output change shape.
    /// 1: `spotlite_change.id` was `AUTOINCREMENT`. 2: a plain `INTEGER PRIMARY KEY`, kept from going back by
    /// ``ChangeIDKeeper``. 3: transactions keep the range of their change ids, and the index on the changes' token
    /// covers only those waiting to be sealed and keepers (``ChangeRanges``).
    static let version = 3

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
                throw SpotliteStoreError.unsupportedHistorySchema(found: found, supported: version)
            }
            if found < 2 { try dropChangeAutoincrement(db) }
            if found < ChangeRanges.firstSchemaVersion { try ChangeRanges.install(upgrading: db) }
            if found < version { try setMeta(db, MetaKey.schemaVersion, version) }
            return try storeID(db)
        }
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS spotlite_meta ("key" TEXT PRIMARY KEY NOT NULL, value);
            CREATE TABLE IF NOT EXISTS spotlite_transaction (
                token INTEGER PRIMARY KEY AUTOINCREMENT,
                timestamp REAL NOT NULL,
                author TEXT,
                context TEXT,
                pid INTEGER,
                first_change INTEGER,
                last_change INTEGER);
            CREATE INDEX IF NOT EXISTS spotlite_transaction_timestamp ON spotlite_transaction(timestamp);
            \(ChangeRanges.guardTriggerSQL)
            \(changeTableSQL(name: "spotlite_change"))
            \(ChangeRanges.pendingIndexSQL)
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

    /// The change table since version 2. Without `AUTOINCREMENT`: see ``ChangeIDKeeper``.
    private static func changeTableSQL(name: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(name) (
            id INTEGER PRIMARY KEY,
            token INTEGER,
            entity TEXT NOT NULL,
            "key",
            type INTEGER NOT NULL,
            columns TEXT,
            tombstone TEXT,
            ts REAL);
        """
    }

    /// Version 1 to 2: copies the change table into one without `AUTOINCREMENT` (SQLite cannot alter that in
    /// place), ids and all, and leaves a keeper for the highest id `AUTOINCREMENT` gave, which history deletion
    /// may have removed from the table. Runs in the caller's transaction: a failure leaves the store as it was.
    private static func dropChangeAutoincrement(_ db: Database) throws {
        let issued = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'spotlite_change'")
        let sealedThrough = try meta(db, MetaKey.sealedThroughChange, as: Int64.self)
        let highest = [issued, sealedThrough, try ChangeIDKeeper.highestID(db)].compactMap { $0 }.max()
        let columns = "id, token, entity, \"key\", type, columns, tombstone, ts"
        // The triggers of tracked tables name spotlite_change in their bodies. Without the legacy setting, renaming
        // the copy would check them while no spotlite_change exists and fail; with it, they are left as they are
        // and name the copy once it has the name.
        let legacy = try Bool.fetchOne(db, sql: "PRAGMA legacy_alter_table") ?? false
        try db.execute(sql: "PRAGMA legacy_alter_table = ON")
        defer { if !legacy { try? db.execute(sql: "PRAGMA legacy_alter_table = OFF") } }
        try db.execute(sql: """
            DROP TABLE IF EXISTS spotlite_change_upgrade;
            \(changeTableSQL(name: "spotlite_change_upgrade"))
            INSERT INTO spotlite_change_upgrade (\(columns)) SELECT \(columns) FROM spotlite_change ORDER BY id;
            DROP TABLE spotlite_change;
            ALTER TABLE spotlite_change_upgrade RENAME TO spotlite_change;
            CREATE INDEX spotlite_change_token ON spotlite_change(token);
            """)
        try ChangeIDKeeper.keep(above: highest, in: db)
    }

    /// Checks that a file opened read-only already has the history tables. Returns the store ID.
    static func verify(_ db: Database, path: String) throws -> String {
        guard let found = try storedVersion(db) else { throw SpotliteStoreError.notASpotliteStore(path: path) }
        guard found <= version else {
            throw SpotliteStoreError.unsupportedHistorySchema(found: found, supported: version)
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
