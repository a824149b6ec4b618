import GRDB

/// A break in history capture: a tracked table's triggers were missing, or hung on another table, so changes made
/// meanwhile may have left no history. Another program does this by dropping a trigger, or by rebuilding a table
/// (`CREATE TABLE t AS SELECT …; DROP TABLE Item; CREATE TABLE Item …`, which drops the triggers with it).
///
/// Spotlite re-creates the triggers when it finds them so (on opening the store for writing, and in
/// ``SpotliteStore/verifyCapture()``), and counts each such event in `spotlite_meta` with its reason. Consumers that
/// derive state from history compare the count with the one they last saw: history cannot tell what the gap
/// missed, only the current rows can (the indexer rebuilds).
public struct CaptureGap: Sendable, Hashable {
    /// How many breaks were found in this store's life; 0 when capture was never broken.
    public var count: Int
    /// What the last break was, in words.
    public var reason: String?

    enum MetaKey {
        static let count = "capture_gap_count"
        static let reason = "capture_gap_reason"
    }

    static func current(_ db: Database) throws -> CaptureGap {
        CaptureGap(count: try HistorySchema.meta(db, MetaKey.count, as: Int.self) ?? 0,
                   reason: try HistorySchema.meta(db, MetaKey.reason, as: String.self))
    }

    /// Counts one more break, described by `problems` (what was wrong with which triggers).
    static func record(_ problems: [String], in db: Database) throws {
        guard !problems.isEmpty else { return }
        let count = try current(db).count + 1
        let reason = "history capture was broken in the store (\(problems.joined(separator: "; "))), so changes made meanwhile may have left no history"
        try HistorySchema.setMeta(db, MetaKey.count, count)
        try HistorySchema.setMeta(db, MetaKey.reason, reason)
    }
}

extension SpotliteStore {
    /// The store's ``CaptureGap`` count and last reason, as recorded (without checking the triggers).
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func captureGap() throws -> CaptureGap {
        try read(CaptureGap.current)
    }

    /// Checks that every tracked table has its capture triggers, re-creating them (and recording a ``CaptureGap``)
    /// when another program dropped them or rebuilt the table; returns the store's gap count and last reason.
    /// Cheap (a few rows of `sqlite_master`): run it before each pass over history. A read-only handle only reads.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    @discardableResult
    public func verifyCapture() throws -> CaptureGap {
        if options.readOnly { return try read(CaptureGap.current) }
        return try databasePool.writeWithoutTransaction { db in
            var gap = CaptureGap(count: 0)
            try db.inTransaction(.immediate) {
                var problems: [String] = []
                for entity in model.entities {
                    let columns = try EntitySchema.prepare(entity, in: db, creatingTable: true)
                    problems += try HistoryTriggers.install(for: entity, columns: columns.map(\.name), in: db)
                }
                try CaptureGap.record(problems, in: db)
                gap = try CaptureGap.current(db)
                return .commit
            }
            return gap
        }
    }
}
