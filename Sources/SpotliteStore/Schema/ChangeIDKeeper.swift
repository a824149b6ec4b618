import GRDB

/// Keeps change ids unique and increasing after history is deleted, at no cost per recorded row.
///
/// `spotlite_change.id` is a plain `INTEGER PRIMARY KEY`: SQLite gives a new row the largest id in the table plus
/// one. (`AUTOINCREMENT` would remember the largest id ever given, but rewrites its `sqlite_sequence` row for every
/// statement that records a change: about a fifth of what capture costs.) Deleting the newest changes would let
/// SQLite hand their ids out again, so whatever deletes them leaves a keeper row behind, carrying the highest id
/// given so far and token 0, which no transaction has (tokens start at 1). Every request selects changes by the
/// token of a transaction, so none sees a keeper; the next change gets the id after it. Keepers are found through
/// the partial index of ``ChangeRanges``, which SQLite uses only for the literal condition ``isKeeper``.
package enum ChangeIDKeeper {
    /// The token of keeper rows.
    package static let token: Int64 = 0

    /// A condition on `spotlite_change` that leaves keeper rows out (NULL tokens, changes waiting to be sealed, stay in).
    package static let excludingKeepers = "token IS NOT 0"

    /// A condition on `spotlite_change` selecting keeper rows.
    package static let isKeeper = "token = 0"

    /// The highest change id in the table, keepers included: every id ever given is at most this, as long as
    /// everything that deletes changes calls ``keep(above:in:)``.
    static func highestID(_ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT max(id) FROM spotlite_change")
    }

    /// Makes sure the next change id is above `highest` (an id given before changes were deleted), leaving one
    /// keeper row when the table's own largest id is below it. Keepers that no longer hold the largest id go.
    static func keep(above highest: Int64?, in db: Database) throws {
        try db.execute(sql: "DELETE FROM spotlite_change WHERE \(isKeeper) AND id < (SELECT max(id) FROM spotlite_change)")
        guard let highest, try (highestID(db) ?? 0) < highest else { return }
        try db.execute(sql: "DELETE FROM spotlite_change WHERE \(isKeeper)")
        try db.execute(
            sql: "INSERT INTO spotlite_change (id, token, entity, type) VALUES (?, ?, '', 0)",
            arguments: [highest, token])
    }
}
