import Foundation
import GRDB

/// Where a store keeps its model version (in `spotlite_meta`) and how it got there (`spotlite_model_migration`).
/// Every function runs inside a transaction the caller holds.
enum MigrationLog {
    enum MetaKey {
        static let version = "model_version"
        static let checksum = "model_checksum"
    }

    static let table = "spotlite_model_migration"

    static func install(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(table) (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                event TEXT NOT NULL,
                from_version TEXT,
                from_checksum TEXT,
                to_version TEXT NOT NULL,
                to_checksum TEXT NOT NULL,
                token INTEGER,
                timestamp REAL NOT NULL)
            """)
    }

    /// The version the store records, if any.
    static func recordedVersion(_ db: Database) throws -> ModelVersionID? {
        guard try db.tableExists("spotlite_meta") else { return nil }
        guard let name = try HistorySchema.meta(db, MetaKey.version, as: String.self) else { return nil }
        let checksum = try HistorySchema.meta(db, MetaKey.checksum, as: String.self) ?? ""
        return ModelVersionID(name: name, checksum: checksum)
    }

    /// Records `record.to` as the store's version and appends the record to the log.
    static func append(_ record: MigrationRecord, in db: Database) throws {
        try HistorySchema.setMeta(db, MetaKey.version, record.to.name)
        try HistorySchema.setMeta(db, MetaKey.checksum, record.to.checksum)
        try db.execute(
            sql: """
                INSERT INTO \(table) (event, from_version, from_checksum, to_version, to_checksum, token, timestamp)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [record.event.rawValue, record.from?.name, record.from?.checksum, record.to.name,
                        record.to.checksum, record.token, record.date.timeIntervalSince1970])
    }

    /// The log, oldest first; empty when the store never recorded a version.
    static func records(_ db: Database) throws -> [MigrationRecord] {
        guard try db.tableExists(table) else { return [] }
        return try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY id").map { row in
            let fromName: String? = row["from_version"]
            return MigrationRecord(
                event: MigrationRecord.Event(rawValue: row["event"]) ?? .lightweight,
                from: fromName.map { ModelVersionID(name: $0, checksum: row["from_checksum"] ?? "") },
                to: ModelVersionID(name: row["to_version"], checksum: row["to_checksum"]),
                token: row["token"],
                date: Date(timeIntervalSince1970: row["timestamp"]))
        }
    }
}
