import Foundation
import GRDB

/// A SQLite store whose tracked tables record persistent history for every committed change, whoever
/// the writer is: this API (attributed to an author and a context name), or any other program (no author).
///
/// The file is opened in WAL mode through a GRDB `DatabasePool`: one writer at a time, concurrent readers.
/// Capture lives in the database itself (triggers), so the `sqlite3` shell or Python's `sqlite3` are recorded
/// too. Their changes are sealed into unattributed transactions at the next write through Spotlite, the next
/// history fetch, or promptly by the change watcher of any writable handle with subscribers; foreign commits
/// landing between two seals share one transaction.
///
/// Other limits, all SQLite's: `INSERT OR REPLACE` over an existing row is recorded as an insert of that key
/// (SQLite runs no delete trigger for the replaced row), so consumers should treat an insert as an upsert.
/// Columns added to a tracked table are tracked from the next time a writable handle opens the store.
/// Triggers of tables that are no longer in the model are left in place, since another program may still
/// track them; drop `spotlite_<Entity>_*` triggers by hand to stop recording such a table.
///
/// ```swift
/// let store = try SpotliteStore(path: "Index/store.sqlite", model: model)
/// try store.write(author: "app", context: "batchContext") { db in
///     try db.execute(sql: "UPDATE Package SET section = 'misc' WHERE section IS NULL")
/// }
/// let transactions = try store.fetchHistory(.after(position).excluding(authors: ["app"]))
/// ```
public final class SpotliteStore: Sendable {
    /// The absolute path of the SQLite file.
    public let path: String
    /// A UUID created with the store's history tables; it changes when the file is re-created.
    public let storeID: String
    /// The entities this handle tracks.
    public let model: StoreModel
    /// The options the store was opened with.
    public let options: StoreOptions
    /// The underlying pool, for advanced reads. Writes made through it directly are recorded like foreign
    /// writes (no author) unless made through ``write(author:context:_:)``.
    public let databasePool: DatabasePool
    let hub: ChangeNotificationHub
    /// Whether the store's transactions kept their change ranges (history schema 3 or later) when this handle
    /// opened it. A schema only rises, so every later snapshot keeps them too and requests need not read the
    /// schema again; a read-only handle on an older store reads it on each request, since a writer may upgrade the
    /// store meanwhile (in a snapshot taken before that, the ranges do not exist yet).
    let rangesKeptSinceOpen: Bool

    /// Opens the store at `path`, creating the file, Spotlite's history tables, the model's missing tables and
    /// the capture triggers as needed.
    ///
    /// - Throws: ``SpotliteStoreError`` when the model is invalid, the folder is missing, or an existing table does not
    ///   fit its entity; GRDB's `DatabaseError` when SQLite cannot open the file.
    public init(path: String, model: StoreModel, options: StoreOptions = StoreOptions()) throws {
        try model.validate()
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SpotliteStoreError.missingDirectory(path: directory)
        }
        if options.readOnly, !FileManager.default.fileExists(atPath: url.path) {
            throw SpotliteStoreError.missingStore(path: url.path)
        }

        var configuration = Configuration()
        configuration.readonly = options.readOnly
        configuration.busyMode = .timeout(options.busyTimeout)
        configuration.maximumReaderCount = options.maximumReaderCount
        configuration.label = "spotlite.store"
        let pool = try DatabasePool(path: url.path, configuration: configuration)

        let storeID: String
        let rangesKept: Bool
        if options.readOnly {
            (storeID, rangesKept) = try pool.read { db in
                let storeID = try HistorySchema.verify(db, path: url.path)
                for entity in model.entities {
                    let columns = try EntitySchema.prepare(entity, in: db, creatingTable: false)
                    if try !HistoryTriggers.areInstalled(for: entity, columns: columns.map(\.name), in: db) {
                        options.logger?.warning(
                            "the history triggers of \(entity.name) in \(url.path) differ from this model's; open the store once without readOnly to update them")
                    }
                }
                return (storeID, try ChangeRanges.areKept(db))
            }
        } else {
            // Installing upgrades the history schema to this version's.
            rangesKept = HistorySchema.version >= ChangeRanges.firstSchemaVersion
            storeID = try pool.writeWithoutTransaction { db in
                var storeID = ""
                try db.inTransaction(.immediate) {
                    // Triggers missing from a store that already had history mean capture was broken meanwhile.
                    let existed = try HistorySchema.storedVersion(db) != nil
                    storeID = try HistorySchema.install(db)
                    var problems: [String] = []
                    for entity in model.entities {
                        let columns = try EntitySchema.prepare(entity, in: db, creatingTable: true)
                        problems += try HistoryTriggers.install(for: entity, columns: columns.map(\.name), in: db)
                    }
                    if existed { try CaptureGap.record(problems, in: db) }
                    return .commit
                }
                return storeID
            }
        }

        self.path = url.path
        self.storeID = storeID
        self.model = model
        self.options = options
        self.databasePool = pool
        self.rangesKeptSinceOpen = rangesKept
        self.hub = ChangeNotificationHub(
            pool: pool, path: url.path, storeID: storeID, sealsForeignChanges: !options.readOnly, logger: options.logger)
    }

    /// Runs `body` in one SQLite transaction recorded in history as one transaction by `author` and `context`.
    ///
    /// Any SQL is allowed inside, including batch `INSERT … SELECT`, `UPDATE … WHERE` and `DELETE`: each
    /// changed row of a tracked table becomes a change of the transaction. If `body` throws, everything is
    /// rolled back and nothing is recorded. A write that changes no tracked row leaves no transaction.
    /// The write waits up to ``StoreOptions/busyTimeout`` for writers in other processes.
    ///
    /// To know which token the write committed (to wait until a consumer or the index has applied it), use
    /// ``writeReturningToken(author:context:_:)``.
    ///
    /// - Throws: ``SpotliteStoreError/readOnlyStore(operation:)`` on a read-only store; what `body` throws (the transaction
    ///   is rolled back and records nothing); SQLite's errors.
    public func write<T>(author: String?, context: String? = nil, _ body: (Database) throws -> T) throws -> T {
        try writeReturningToken(author: author, context: context, body).value
    }

    /// Runs `body` like ``write(author:context:_:)``, and returns its value with the token of the history
    /// transaction the write committed: nil when it changed no tracked row. Unlike ``currentToken()`` read
    /// afterwards, this is the write's own token, whatever other writers commit meanwhile.
    ///
    /// ```swift
    /// let token = try store.writeReturningToken(author: "app") { db in try db.execute(sql: "…") }.token
    /// if let token { try await indexer.waitUntilIndexed(through: token) }
    /// ```
    ///
    /// - Throws: ``SpotliteStoreError/readOnlyStore(operation:)`` on a read-only store; what `body` throws (the transaction
    ///   is rolled back and records nothing); SQLite's errors.
    @discardableResult
    public func writeReturningToken<T>(author: String?, context: String? = nil, _ body: (Database) throws -> T)
        throws -> (value: T, token: HistoryToken?)
    {
        guard !options.readOnly else { throw SpotliteStoreError.readOnlyStore(operation: .write) }
        var newestToken: HistoryToken?
        var ownToken: HistoryToken?
        let result = try databasePool.writeWithoutTransaction { db -> T in
            var result: T?
            try db.inTransaction(.immediate) {
                // Foreign changes committed before this write get the smaller token: tokens follow commit order.
                let sealed = try HistoryRecorder.sealPendingChanges(db)
                let token = try HistoryRecorder.begin(db, author: author, context: context)
                result = try body(db)
                ownToken = try HistoryRecorder.end(db, token: token)
                newestToken = ownToken ?? sealed
                return .commit
            }
            return result!
        }
        if let newestToken { hub.post(newestToken) }
        return (result, ownToken)
    }

    /// Runs `body` in one write transaction recorded as one history transaction of `context`.
    ///
    /// - Throws: the errors of ``write(author:context:_:)``.
    public func write<T>(in context: WriteContext, _ body: (Database) throws -> T) throws -> T {
        try write(author: context.transactionAuthor, context: context.name, body)
    }

    /// Runs `body` on a read-only snapshot of the store.
    ///
    /// - Throws: what `body` throws; SQLite's errors.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try databasePool.read(body)
    }
}
