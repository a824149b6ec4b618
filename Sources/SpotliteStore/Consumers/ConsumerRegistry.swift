import Foundation
import GRDB

/// The history consumers registered in a store, kept in `spotlite_meta` (`consumer:NAME`) so that every process
/// and every cleanup sees the same list, and registration commits atomically with a position.
enum ConsumerRegistry {
    private static let prefix = "consumer:"

    static func names(in db: Database) throws -> [String] {
        // `;` follows `:` in every collation SQLite uses for text keys, so this is a range scan of the prefix.
        try String.fetchAll(
            db, sql: "SELECT substr(\"key\", ?) FROM spotlite_meta WHERE \"key\" >= ? AND \"key\" < ? ORDER BY \"key\"",
            arguments: [prefix.count + 1, prefix, "consumer;"])
    }

    static func isRegistered(_ name: String, in db: Database) throws -> Bool {
        try HistorySchema.meta(db, prefix + name, as: Double.self) != nil
    }

    static func register(_ name: String, now: Date, in db: Database) throws {
        guard try !isRegistered(name, in: db) else { return }
        try HistorySchema.setMeta(db, prefix + name, now.timeIntervalSince1970)
    }

    static func unregister(_ name: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM spotlite_meta WHERE \"key\" = ?", arguments: [prefix + name])
        try PositionTable.remove(for: name, in: db)
        try AuthorAbsence.end(of: name, in: db)
    }
}
