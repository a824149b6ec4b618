import Foundation
import GRDB

extension SpotliteStore {
    /// The position saved for `author`, or nil.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func position(of author: String) throws -> HistoryPosition? {
        try databasePool.read { db in try PositionTable.position(of: author, in: db) }
    }

    /// Saves `token` as the position of `author`, replacing any previous one.
    ///
    /// - Throws: ``SpotliteStoreError/unknownToken(requested:current:)`` when the store never issued `token`.
    public func setPosition(_ token: HistoryToken, for author: String, timestamp: Date = Date()) throws {
        guard !options.readOnly else { throw SpotliteStoreError.readOnlyStore(operation: .savePosition) }
        try databasePool.write { db in try Self.savePosition(token, for: author, timestamp: timestamp, in: db) }
    }

    /// `setPosition(_:for:timestamp:)` through GRDB's async APIs: the write (which may wait for another
    /// process's lock) runs on the pool's writer queue, never on the caller's thread.
    func setPositionAsynchronously(_ token: HistoryToken, for author: String, timestamp: Date = Date()) async throws {
        guard !options.readOnly else { throw SpotliteStoreError.readOnlyStore(operation: .savePosition) }
        try await databasePool.write { db in try Self.savePosition(token, for: author, timestamp: timestamp, in: db) }
    }

    private static func savePosition(_ token: HistoryToken, for author: String, timestamp: Date, in db: Database) throws {
        let current = try HistoryRecorder.currentToken(db)
        guard token <= (current ?? HistoryToken(0)) else {
            throw SpotliteStoreError.unknownToken(requested: token, current: current)
        }
        try PositionTable.set(token, for: author, timestamp: timestamp, in: db)
    }

    /// Forgets the position of `author`.
    ///
    /// - Throws: ``SpotliteStoreError/readOnlyStore(operation:)`` on a read-only store; SQLite's errors (GRDB's
    ///   `DatabaseError`).
    public func removePosition(for author: String) throws {
        guard !options.readOnly else { throw SpotliteStoreError.readOnlyStore(operation: .removePosition) }
        try databasePool.write { db in try PositionTable.remove(for: author, in: db) }
    }

    /// Every saved position, by author name.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func positions() throws -> [HistoryPosition] {
        try databasePool.read { db in try PositionTable.all(in: db) }
    }

    /// The smallest position of `authors`: the history all of them have processed. Nil when `authors` is
    /// empty or one of them has no position yet.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func commonPosition(of authors: [String]) throws -> HistoryToken? {
        try databasePool.read { db in try PositionTable.commonPosition(of: authors, in: db) }
    }
}
