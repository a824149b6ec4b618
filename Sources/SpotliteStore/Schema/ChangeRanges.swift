import GRDB

/// How a transaction finds its changes.
///
/// Since history schema 3, each transaction row keeps the range of its change ids (`first_change`, `last_change`)
/// and every request selects a transaction's changes by that range, a scan of the change table's own rowid. The
/// change table then needs no index on `token`, whose upkeep was a sixth of what SQLite spends recording a row.
/// Ranges hold because change ids are given in commit order: an attributed write's changes are the ids given
/// between its start and its end, and foreign changes waiting to be sealed are all above the last ones sealed
/// (both under the write lock). Each change keeps its token too, and requests check it, so a change that another
/// program wrote into the middle of a range by hand still belongs to no one else's transaction.
///
/// The few changes without a transaction (written by other programs, waiting to be sealed: `token IS NULL`) and
/// the keeper rows of ``ChangeIDKeeper`` (`token = 0`) are found through a partial index holding only them.
package enum ChangeRanges {
    /// The first history schema whose transactions keep their ranges.
    static let firstSchemaVersion = 3

    /// The partial index of changes waiting to be sealed and keepers. Requests name `token IS NULL` or
    /// `token = 0` with literal values, so that SQLite can tell the index covers them.
    static let pendingIndexSQL = """
        CREATE INDEX IF NOT EXISTS spotlite_change_pending ON spotlite_change(token) WHERE token IS NULL OR token = 0;
        """

    /// Stops a program that still writes history the way of schema 2 (a Spotlite process started before the store
    /// was upgraded, which would create transactions without a range that no request could see): its write fails
    /// and is rolled back, with the way out in the message. Spotlite's writes give `first_change` when they create
    /// the row.
    static let guardTriggerSQL = """
        CREATE TRIGGER IF NOT EXISTS spotlite_transaction_range BEFORE INSERT ON spotlite_transaction \
        FOR EACH ROW WHEN NEW.first_change IS NULL \
        BEGIN SELECT RAISE(ABORT, 'this Spotlite store uses history schema 3 since a newer Spotlite opened it; \
        restart this program with that version'); END;
        """

    /// Whether the store's transactions keep their ranges, read in the caller's snapshot: a read-only handle can
    /// read a store of an older schema, which a writer may upgrade while it is open. Stores of older schemas have
    /// the index on `token` instead, and every change still carries its token.
    package static func areKept(_ db: Database) throws -> Bool {
        (try HistorySchema.storedVersion(db) ?? HistorySchema.version) >= firstSchemaVersion
    }

    /// The condition tying change `c` to transaction `t`, for the schema ``areKept(_:)`` found.
    package static func changeOfTransaction(rangesKept: Bool) -> String {
        // `+c.token`: a check of each change in the range, never a way in (without it SQLite, which knows nothing
        // of the ranges' sizes, builds an automatic index on token for every request and sorts the result).
        rangesKept ? "c.id BETWEEN t.first_change AND t.last_change AND +c.token = t.token" : "c.token = t.token"
    }

    /// `FROM` both tables, each change with its transaction. With ranges, the transactions drive the loop (SQLite
    /// would otherwise be free to scan the whole change table): each transaction's changes are one rowid range,
    /// already in change order.
    static func join(rangesKept: Bool) -> String {
        let joining = rangesKept ? "CROSS JOIN" : "JOIN"
        return "spotlite_transaction t \(joining) spotlite_change c ON \(changeOfTransaction(rangesKept: rangesKept))"
    }

    /// Version 2 to 3: gives every transaction the range of its changes, read from the index on `token` before
    /// it goes, and puts the partial index and the guard in place. Changes waiting to be sealed and keepers keep
    /// their rows and ids. Runs in the caller's transaction: a failure leaves the store as it was.
    static func install(upgrading db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE spotlite_transaction ADD COLUMN first_change INTEGER;
            ALTER TABLE spotlite_transaction ADD COLUMN last_change INTEGER;
            CREATE INDEX IF NOT EXISTS spotlite_change_token ON spotlite_change(token);
            UPDATE spotlite_transaction SET (first_change, last_change) =
                (SELECT min(c.id), max(c.id) FROM spotlite_change c WHERE c.token = spotlite_transaction.token);
            DROP INDEX spotlite_change_token;
            \(pendingIndexSQL)
            \(guardTriggerSQL)
            """)
    }
}
