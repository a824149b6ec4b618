import Foundation
import GRDB

/// Per-author positions in `spotlite_position`. Living in the store's own database, they can be read and
/// history deleted in one SQLite transaction, and every process sees the same values.
enum PositionTable {
    static func position(of author: String, in db: Database) throws -> HistoryPosition? {
        try Row.fetchOne(
            db, sql: "SELECT author, token, timestamp FROM spotlite_position WHERE author = ?", arguments: [author]
        ).map(position(from:))
    }

    static func all(in db: Database) throws -> [HistoryPosition] {
        try Row.fetchAll(db, sql: "SELECT author, token, timestamp FROM spotlite_position ORDER BY author")
            .map(position(from:))
    }

    static func set(_ token: HistoryToken, for author: String, timestamp: Date, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO spotlite_position (author, token, timestamp) VALUES (?, ?, ?)
                ON CONFLICT(author) DO UPDATE SET token = excluded.token, timestamp = excluded.timestamp
                """,
            arguments: [author, token, timestamp.timeIntervalSince1970])
    }

    static func remove(for author: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM spotlite_position WHERE author = ?", arguments: [author])
    }

    /// The smallest position among `authors`: the history all of them have processed.
    /// Nil when the list is empty or one of them has no position yet (it may still need everything).
    static func commonPosition(of authors: [String], in db: Database) throws -> HistoryToken? {
        guard !authors.isEmpty else { return nil }
        var lowest: HistoryToken?
        for author in Set(authors) {
            guard let position = try position(of: author, in: db) else { return nil }
            lowest = min(lowest ?? position.token, position.token)
        }
        return lowest
    }

    private static func position(from row: Row) -> HistoryPosition {
        HistoryPosition(author: row["author"], token: row["token"], timestamp: Date(timeIntervalSince1970: row["timestamp"]))
    }
}
