import Foundation
import GRDB

/// Opens and closes the history transaction of an attributed write, and seals foreign changes.
/// Every function runs inside a write transaction the caller holds.
enum HistoryRecorder {
    /// Gives the changes recorded without a token (writes by programs that do not use Spotlite) a transaction
    /// of their own: no author, no context, no process, the timestamp of their first change.
    ///
    /// Sealing happens under the write lock before any later transaction is created, so tokens stay in commit
    /// order. Foreign commits that land between two seals share one transaction.
    static func sealPendingChanges(_ db: Database) throws -> HistoryToken? {
        try repairPoisonedCurrentToken(db)
        defer { try? markSealed(db) }
        guard let row = try Row.fetchOne(db, sql: """
            SELECT count(*) AS count, min(ts) AS firstTimestamp, min(id) AS first, max(id) AS last
            FROM spotlite_change WHERE token IS NULL
            """),
            (row["count"] as Int) > 0
        else { return nil }
        let timestamp = row["firstTimestamp"] as Double? ?? Date().timeIntervalSince1970
        // Pending changes are every change above the last ones sealed (see ChangeRanges): one range.
        try db.execute(
            sql: """
                INSERT INTO spotlite_transaction (timestamp, author, context, pid, first_change, last_change)
                VALUES (?, NULL, NULL, NULL, ?, ?)
                """,
            arguments: [timestamp, row["first"] as Int64, row["last"] as Int64])
        let token = HistoryToken(db.lastInsertedRowID)
        try db.execute(sql: "UPDATE spotlite_change SET token = ? WHERE token IS NULL", arguments: [token])
        return token
    }

    /// Whether changes wait to be sealed (or `spotlite_current` needs repairing). Cheap: answered from the partial
    /// index of pending changes and a one-row table.
    static func hasPendingChanges(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM spotlite_change WHERE token IS NULL)
                OR (SELECT token FROM spotlite_current WHERE id = 1) IS NOT NULL
            """) ?? false
    }

    /// Undoes what another program did by setting `spotlite_current` (only Spotlite's writes may, and they reset
    /// it before committing): the changes recorded since under the token it chose would belong to an old (perhaps
    /// already indexed) transaction, or to none, and never reach consumers. They are detached again, to be sealed
    /// into a transaction of their own, and the token is reset.
    ///
    /// Which changes: every change is written by a trigger with the token of `spotlite_current`, which is NULL
    /// outside Spotlite's writes; each write and seal records the highest change id it left behind, so a change
    /// above that id carrying a token got it from a poisoned `spotlite_current`.
    /// - Returns: whether anything was repaired.
    @discardableResult
    static func repairPoisonedCurrentToken(_ db: Database) throws -> Bool {
        var repaired = false
        if try HistoryToken.fetchOne(db, sql: "SELECT token FROM spotlite_current WHERE id = 1") != nil {
            try db.execute(sql: "UPDATE spotlite_current SET token = NULL WHERE id = 1")
            repaired = true
        }
        if let sealedThrough = try HistorySchema.meta(db, HistorySchema.MetaKey.sealedThroughChange, as: Int64.self) {
            try db.execute(sql: """
                UPDATE spotlite_change SET token = NULL, ts = coalesce(ts, \(HistoryTriggers.nowSQL))
                WHERE id > ? AND token IS NOT NULL AND \(ChangeIDKeeper.excludingKeepers)
                """, arguments: [sealedThrough])
            repaired = repaired || db.changesCount > 0
        }
        return repaired
    }

    /// Records the highest change id as accounted for: every change up to it has its rightful token.
    ///
    /// That id was given out, so it also guards change ids: when the table's largest id is below it, another program
    /// deleted the newest changes (Spotlite's own deletion leaves a keeper), and a keeper takes their place before
    /// SQLite could hand their ids out again.
    static func markSealed(_ db: Database) throws {
        var highest = try ChangeIDKeeper.highestID(db) ?? 0
        if let sealedThrough = try HistorySchema.meta(db, HistorySchema.MetaKey.sealedThroughChange, as: Int64.self),
           sealedThrough > highest {
            try ChangeIDKeeper.keep(above: sealedThrough, in: db)
            highest = sealedThrough
        }
        try HistorySchema.setMeta(db, HistorySchema.MetaKey.sealedThroughChange, highest)
    }

    /// Creates the transaction row, starting its range of change ids at the next id SQLite gives, and points the
    /// triggers at it.
    static func begin(_ db: Database, author: String?, context: String?) throws -> HistoryToken {
        try db.execute(
            sql: """
                INSERT INTO spotlite_transaction (timestamp, author, context, pid, first_change)
                VALUES (?, ?, ?, ?, (SELECT coalesce(max(id), 0) + 1 FROM spotlite_change))
                """,
            arguments: [Date().timeIntervalSince1970, author, context, Int64(getpid())])
        let token = HistoryToken(db.lastInsertedRowID)
        try db.execute(sql: "UPDATE spotlite_current SET token = ? WHERE id = 1", arguments: [token])
        return token
    }

    /// Detaches the triggers from the transaction and closes its range of change ids at the last id given, or
    /// removes it when it recorded nothing (its token is then never used: AUTOINCREMENT does not hand it out
    /// again). Returns the token when changes were recorded.
    static func end(_ db: Database, token: HistoryToken) throws -> HistoryToken? {
        try db.execute(sql: "UPDATE spotlite_current SET token = NULL WHERE id = 1")
        // Before markSealed, which may add a keeper above the last change.
        try db.execute(sql: """
            UPDATE spotlite_transaction SET last_change = (SELECT max(id) FROM spotlite_change)
            WHERE token = ? AND first_change <= (SELECT max(id) FROM spotlite_change)
            """, arguments: [token])
        let recorded = db.changesCount > 0
        try markSealed(db)
        if recorded { return token }
        try db.execute(sql: "DELETE FROM spotlite_transaction WHERE token = ?", arguments: [token])
        return nil
    }

    /// The token of the newest transaction, or of the newest deleted one when all newer history is gone.
    static func currentToken(_ db: Database) throws -> HistoryToken? {
        let newest = try HistoryToken.fetchOne(db, sql: "SELECT max(token) FROM spotlite_transaction")
        let purged = try purgedThrough(db)
        switch (newest, purged) {
        case let (newest?, purged?): return max(newest, purged)
        case let (newest, purged): return newest ?? purged
        }
    }

    static func oldestToken(_ db: Database) throws -> HistoryToken? {
        try HistoryToken.fetchOne(db, sql: "SELECT min(token) FROM spotlite_transaction")
    }

    static func purgedThrough(_ db: Database) throws -> HistoryToken? {
        try HistorySchema.meta(db, HistorySchema.MetaKey.purgedThrough, as: HistoryToken.self)
    }
}
