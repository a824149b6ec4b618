import GRDB

extension SpotliteStore {
    /// The store's current token as seen by `db`'s transaction: with ``read(_:)``, a snapshot of the rows together
    /// with the token they reflect (the base of a consumer's full resynchronisation: index the rows, then apply the
    /// history after this token). Foreign changes not yet sealed are in the rows but after the token, so they are
    /// applied again later; consumers must apply changes idempotently.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public static func currentToken(in db: Database) throws -> HistoryToken? {
        try HistoryRecorder.currentToken(db)
    }
}
