import Foundation
import GRDB

/// Since when cleanup has seen a required author without a position, kept in `spotlite_meta` so that every
/// process measures the same absence.
enum AuthorAbsence {
    static func key(for author: String) -> String { "absent_since:" + author }

    /// When an absence was first seen; records `now` as its start when it is new (unless `recording` is off).
    static func start(of author: String, now: Date, recording: Bool, in db: Database) throws -> Date {
        if let seconds = try HistorySchema.meta(db, key(for: author), as: Double.self) {
            return Date(timeIntervalSince1970: seconds)
        }
        if recording { try HistorySchema.setMeta(db, key(for: author), now.timeIntervalSince1970) }
        return now
    }

    /// Forgets an absence once the author has a position.
    static func end(of author: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM spotlite_meta WHERE \"key\" = ?", arguments: [key(for: author)])
    }
}
