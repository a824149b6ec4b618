import Foundation
import GRDB
import Logging
import SpotliteStore
#if canImport(Glibc)
import Glibc
#endif

/// The history-driven search indexer: a Spotlight delegate for SQLite on Linux.
///
/// It keeps a Xapian index in step with a ``SpotliteStore`` by consuming the store's persistent history after the
/// token recorded in the index, and records its own position in the store (as the author
/// ``IndexerConfiguration/author``) so that shared cleanup never deletes history it has not indexed.
///
/// - The index's metadata token is the truth; it is committed atomically with the documents. The position in the
///   store follows each commit, so it may lag, never lead.
/// - When the index cannot be brought up to date from history (no index yet, history purged past its token, a
///   different store, a changed configuration), it is rebuilt: a snapshot of every row at a known token is indexed
///   into a new generation beside the live one, switched in atomically, then the history after that token is applied.
///   Searches keep answering from the old generation until the switch; an interrupted rebuild leaves it intact.
/// - One indexer per index, across processes: a second one gets ``SearchError/indexLocked(path:holderPID:)``.
///
/// ```swift
/// let indexer = try SpotliteIndexer(store: store, configuration: configuration)
/// let summary = try await indexer.update()      // catch up once
/// try await indexer.start()                      // or follow every commit, from any process
/// ```
public actor SpotliteIndexer {
    public nonisolated let store: SpotliteStore
    public nonisolated let configuration: Configuration
    /// The index directory.
    public nonisolated let indexPath: String

    let schema: IndexSchema
    let directory: IndexDirectory
    private let provider: (any IndexDocumentProvider)?
    private let logger: Logger
    private let broadcaster = IndexUpdateBroadcaster()
    private var lock: IndexWriterLock?
    private var liveTask: Task<Void, Never>?
    private var progressHandler: (@Sendable (IndexProgress) -> Void)?
    /// The last error live indexing met (it retries on the next notification).
    public private(set) var lastError: String?

    /// Creates an indexer for `store`, indexing what `configuration` describes into `indexPath` (default: the
    /// configuration's index path). Nothing is opened until the first update.
    public init(store: SpotliteStore, configuration: Configuration, indexPath: String? = nil,
                documentProvider: (any IndexDocumentProvider)? = nil, logger: Logger? = nil) throws {
        self.store = store
        self.configuration = configuration
        self.indexPath = indexPath ?? configuration.indexPath
        self.schema = try IndexSchema(configuration: configuration)
        self.directory = IndexDirectory(path: self.indexPath)
        self.provider = documentProvider
        self.logger = logger ?? Logger(label: "spotlite.indexer")
    }

    // MARK: - Live mode

    /// Whether the indexer follows the store's change notifications.
    public var isIndexingEnabled: Bool { liveTask != nil }

    /// Reports rebuild progress (documents done out of the total) to `handler`.
    public func setProgressHandler(_ handler: (@Sendable (IndexProgress) -> Void)?) {
        progressHandler = handler
    }

    /// Starts live indexing: catches up now, then applies every commit to the store, from any process, shortly after
    /// it happens. Bursts of writes coalesce into few index commits, since each update applies everything pending.
    /// Holds the index's writer lock until ``stop()``. Calling it again while running does nothing.
    public func start() throws {
        guard liveTask == nil else { return }
        lock = try acquireLock()
        let notifications = store.changeNotifications()
        liveTask = Task { [weak self] in
            await self?.liveUpdate()
            for await _ in notifications {
                guard let self, !Task.isCancelled else { break }
                await self.liveUpdate()
            }
        }
    }

    /// Stops live indexing after the update in progress (if any) has committed, and releases the writer lock.
    /// The indexer's position stays in the store, so the history it will need is kept for it (up to the
    /// configured maximum duration).
    public func stop() async {
        guard let task = liveTask else { return }
        liveTask = nil
        task.cancel()
        lock = nil
    }

    private func liveUpdate() {
        guard liveTask != nil else { return }
        do {
            _ = try update()
            lastError = nil
        } catch {
            lastError = "\(error)"
            logger.error("live index update failed: \(error); retrying on the next change")
        }
    }

    /// Every commit of the index from now on, with the token it reflects (like Core Spotlight's index-did-update
    /// notification). Several observers may listen at once.
    public nonisolated func indexUpdates() -> AsyncStream<IndexDidUpdate> {
        broadcaster.subscribe()
    }

    // MARK: - Updating

    /// Brings the index up to date: applies the history after the index's token, rebuilding first when needed
    /// (the summary says why).
    @discardableResult
    public func update() throws -> IndexUpdateSummary {
        try withWriterLock { try performUpdate(forcedReason: nil) }
    }

    /// Builds a fresh index from the store's current rows beside the live one, switches to it atomically, then
    /// applies the history committed meanwhile.
    @discardableResult
    public func rebuild(reason: String = "a rebuild was requested") throws -> IndexUpdateSummary {
        try withWriterLock { try performUpdate(forcedReason: reason) }
    }

    /// Removes the index and the indexer's position in the store (so cleanup stops waiting for it).
    /// Refuses while live indexing runs: call ``stop()`` first, or the index would be rebuilt at once.
    public func deleteIndex() throws {
        guard liveTask == nil else { throw SearchError.indexingRunning }
        try withWriterLock {
            do {
                try directory.remove()
            } catch {
                throw SearchError.cannotWrite(path: indexPath, reason: "\(error.localizedDescription)")
            }
        }
        try store.removePosition(for: configuration.indexer.author)
    }

    private func withWriterLock<T>(_ body: () throws -> T) throws -> T {
        if lock != nil { return try body() }
        lock = try acquireLock()
        defer { lock = nil }
        return try body()
    }

    private func acquireLock() throws -> IndexWriterLock {
        try directory.create()
        return try IndexWriterLock(directory: directory)
    }

    private func performUpdate(forcedReason: String?) throws -> IndexUpdateSummary {
        let clock = ContinuousClock()
        let started = clock.now
        var summary = IndexUpdateSummary()
        _ = try store.sealPendingChanges()
        var reason = try forcedReason ?? rebuildReason()
        var attempts = 0
        while true {
            attempts += 1
            if let why = reason {
                try rebuildGeneration(reason: why, into: &summary)
                reason = nil
            }
            do {
                try applyHistory(into: &summary)
                break
            } catch let HistoryError.expiredToken(requested, purgedThrough) {
                guard attempts < 3 else { throw HistoryError.expiredToken(requested: requested, purgedThrough: purgedThrough) }
                reason = "the history after token \(requested.map { "\($0)" } ?? "0") was deleted (through token \(purgedThrough)) before the index consumed it"
            } catch let SearchError.engine(type, message) where attempts < 3 && Self.isDamage(type: type, message: message) {
                // Opening the index read its metadata fine, but a table is truncated or corrupt further in.
                reason = "the index is damaged (\(type): \(message))"
            }
        }
        let elapsed = clock.now - started
        summary.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return summary
    }

    /// Whether a failed update met a damaged index (a rebuild helps), rather than a write failure such as a full disk.
    static func isDamage(type: String, message: String) -> Bool {
        type == "DatabaseCorruptError" || (type == "DatabaseError" && message.contains("read"))
    }

    /// Why the live index cannot be updated from history, or nil when it can.
    func rebuildReason() throws -> String? {
        guard let generation = directory.liveGeneration else { return "there is no index yet" }
        let metadata: IndexMetadata
        do {
            let database = try XapianDatabase(path: directory.generationPath(generation))
            metadata = try IndexMetadata(reading: database.metadata(forKey:))
            _ = try database.documentCount()
        } catch {
            return "the index could not be read (\(error))"
        }
        if metadata.storeID != store.storeID {
            return "the index was built from another store (store id \(metadata.storeID ?? "none"), this store is \(store.storeID))"
        }
        if metadata.format != IndexMetadata.format {
            return "the index was written by another version of Spotlite (format \(metadata.format ?? "none"))"
        }
        if metadata.fingerprint != schema.fingerprint {
            return "the indexing configuration changed (fields, language or stopwords: fingerprint \(metadata.fingerprint ?? "none") is now \(schema.fingerprint))"
        }
        let current = try store.currentToken()
        if let token = metadata.token, token.rawValue > 0, token > (current ?? HistoryToken(rawValue: 0)) {
            return "the index is ahead of the store (token \(token) > \(current.map { "\($0)" } ?? "none")): the store was re-created"
        }
        return nil
    }

    // MARK: - Incremental updates

    /// A document to bring in line with the store: upsert (read the current row) or delete.
    private struct PendingChange {
        var entity: String
        var key: DatabaseValue
        var delete: Bool
    }

    private func applyHistory(into summary: inout IndexUpdateSummary) throws {
        guard let generation = directory.liveGeneration else { return }
        let path = directory.generationPath(generation)
        var replays = 0
        while true {
            do {
                try applyHistory(at: path, into: &summary)
                return
            } catch let error as XapianError where error.batchLost || error.code != .databaseLock {
                // Xapian discarded the uncommitted batch: start again from the last committed token.
                replays += 1
                logger.warning("index write failed (\(error)); replaying from the last committed token")
                guard replays <= 3 else { throw SearchError.engine(type: error.type, message: error.message) }
            }
        }
    }

    private func applyHistory(at path: String, into summary: inout IndexUpdateSummary) throws {
        let writer: XapianWritableDatabase
        do {
            writer = try XapianWritableDatabase(path: path, action: .open)
        } catch let error as XapianError where error.code == .databaseLock {
            throw SearchError.indexLocked(path: indexPath, holderPID: nil)
        }
        defer { try? writer.close() }
        let builder = try DocumentBuilder(schema: schema, spellingDatabase: writer)
        let metadata = try IndexMetadata(reading: writer.metadata(forKey:))

        var lastComplete = metadata.token.flatMap { $0.rawValue > 0 ? $0 : nil }
        if summary.token == nil { summary.token = lastComplete }
        let batchSize = max(1, configuration.indexer.batchSize)
        var pending: [String: PendingChange] = [:]
        var pendingOrder: [String] = []
        while true {
            let transactions = try store.fetchHistory(HistoryRequest.after(lastComplete).limit(batchSize))
            if transactions.isEmpty { break }
            for transaction in transactions {
                for change in transaction.changes {
                    summary.changes += 1
                    guard let entity = schema.entities[change.entity] else { continue }
                    if change.changeType == .update, provider == nil, let columns = change.updatedColumns,
                       entity.relevantColumns.isDisjoint(with: columns) {
                        continue
                    }
                    let id = DocumentIdentity.term(entity: change.entity, key: change.key)
                    if pending[id] == nil { pendingOrder.append(id) }
                    pending[id] = PendingChange(entity: change.entity, key: change.key, delete: change.changeType == .delete)
                    if pending.count >= batchSize {
                        // Commit what we have; the token stays at the last complete transaction, and replaying a
                        // partly applied one is harmless since documents are rebuilt from the current rows.
                        try flush(&pending, order: &pendingOrder, writer: writer, builder: builder,
                                  token: lastComplete, into: &summary)
                    }
                }
                summary.transactions += 1
                lastComplete = transaction.token
            }
            try flush(&pending, order: &pendingOrder, writer: writer, builder: builder,
                      token: lastComplete, into: &summary)
            summary.token = lastComplete
        }
    }

    /// Writes the pending documents and commits them with `token` in the metadata, then advances the indexer's
    /// position in the store to it.
    private func flush(_ pending: inout [String: PendingChange], order: inout [String], writer: XapianWritableDatabase,
                       builder: DocumentBuilder, token: HistoryToken?, into summary: inout IndexUpdateSummary) throws {
        let changes = order.compactMap { pending[$0] }
        pending.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        let documents = try Self.readDocuments(for: changes.filter { !$0.delete }, store: store, schema: schema,
                                               provider: provider)
        for change in changes {
            let id = DocumentIdentity.term(entity: change.entity, key: change.key)
            if !change.delete, let entry = documents[id] {
                _ = try writer.replaceDocument(uniqueTerm: id, document: try builder.document(
                    entity: entry.entity, key: change.key, attributes: entry.attributes).document)
                summary.indexed += 1
            } else {
                try writer.deleteDocument(uniqueTerm: id)
                summary.deleted += 1
            }
        }
        try writer.setMetadata(IndexMetadata.tokenText(token), forKey: IndexMetadata.tokenKey)
        try writer.setMetadata(String(Date().timeIntervalSince1970), forKey: IndexMetadata.updatedAtKey)
        try writer.commit()
        if let token {
            try store.setPosition(token, for: configuration.indexer.author)
        }
        broadcaster.post(IndexDidUpdate(token: token, summary: summary))
    }

    /// The current attribute sets of the records to upsert, by id term; records deleted since (or left out by the
    /// document provider) are absent, so their documents are deleted.
    private static func readDocuments(
        for changes: [PendingChange], store: SpotliteStore, schema: IndexSchema, provider: (any IndexDocumentProvider)?
    ) throws -> [String: (entity: IndexSchema.Entity, attributes: AttributeSet)] {
        guard !changes.isEmpty else { return [:] }
        let byEntity = Dictionary(grouping: changes, by: \.entity)
        return try store.read { db in
            var result: [String: (entity: IndexSchema.Entity, attributes: AttributeSet)] = [:]
            for (name, entityChanges) in byEntity {
                let entity = try schema.entity(named: name)
                let table = name.quotedDatabaseIdentifier
                let keyColumn = entity.key.quotedDatabaseIdentifier
                for start in stride(from: 0, to: entityChanges.count, by: 500) {
                    let chunk = entityChanges[start..<min(start + 500, entityChanges.count)]
                    let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                    let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(table) WHERE \(keyColumn) IN (\(placeholders))",
                                                arguments: StatementArguments(chunk.map(\.key)))
                    for row in rows {
                        let key: DatabaseValue = row[entity.key]
                        if let attributes = try attributeSet(entity: entity, key: key, row: row, db: db, provider: provider) {
                            result[DocumentIdentity.term(entity: name, key: key)] = (entity, attributes)
                        }
                    }
                }
            }
            return result
        }
    }

    private static func attributeSet(entity: IndexSchema.Entity, key: DatabaseValue, row: Row, db: Database,
                                     provider: (any IndexDocumentProvider)?) throws -> AttributeSet? {
        if let provider {
            return try provider.attributeSet(for: IndexRecord(entity: entity.name, key: key, row: row), in: db)
        }
        return AttributeSet(row: row, fields: entity.fields)
    }

    // MARK: - Rebuild

    /// Indexes a snapshot of every row into a new generation and makes it live. The snapshot and its token come
    /// from one read transaction, so the history after that token is exactly what the snapshot misses.
    private func rebuildGeneration(reason: String, into summary: inout IndexUpdateSummary) throws {
        logger.info("rebuilding the index at \(indexPath): \(reason)")
        directory.removeStaleGenerations()
        let generation = directory.nextGeneration()
        let path = directory.generationPath(generation)
        var keepNew = false
        defer { if !keepNew { try? FileManager.default.removeItem(atPath: path) } }
        let writer = try XapianWritableDatabase(path: path, action: .createOrOverwrite, noSync: true)
        let builder = try DocumentBuilder(schema: schema, spellingDatabase: writer)
        let (token, indexed) = try Self.indexSnapshot(store: store, schema: schema, provider: provider,
                                                      writer: writer, builder: builder, progress: progressHandler)
        try writer.setMetadata(IndexMetadata.tokenText(token), forKey: IndexMetadata.tokenKey)
        try writer.setMetadata(store.storeID, forKey: IndexMetadata.storeIDKey)
        try writer.setMetadata(schema.fingerprint, forKey: IndexMetadata.fingerprintKey)
        try writer.setMetadata(configuration.indexDescription, forKey: IndexMetadata.descriptionKey)
        try writer.setMetadata(IndexMetadata.format, forKey: IndexMetadata.formatKey)
        try writer.setMetadata(String(Date().timeIntervalSince1970), forKey: IndexMetadata.updatedAtKey)
        try writer.commit()
        try writer.close()
        // The generation was written without fsync (DB_NO_SYNC): make it durable once, before it becomes live.
        try Self.syncTree(path)
        try directory.makeLive(generation)
        keepNew = true
        directory.removeStaleGenerations()
        if let token { try store.setPosition(token, for: configuration.indexer.author) }
        summary.rebuilt = true
        summary.reason = reason
        summary.indexed += indexed
        summary.token = token
        broadcaster.post(IndexDidUpdate(token: token, summary: summary))
    }

    /// Indexes every row of one read snapshot and returns the token the snapshot reflects, with the number of
    /// documents written.
    private static func indexSnapshot(
        store: SpotliteStore, schema: IndexSchema, provider: (any IndexDocumentProvider)?,
        writer: XapianWritableDatabase, builder: DocumentBuilder, progress: (@Sendable (IndexProgress) -> Void)?
    ) throws -> (HistoryToken?, Int) {
        try store.read { db in
            let token = try SpotliteStore.currentToken(in: db)
            var total = 0
            for name in schema.entityNames {
                total += try Int.fetchOne(db, sql: "SELECT count(*) FROM \(name.quotedDatabaseIdentifier)") ?? 0
            }
            progress?(IndexProgress(done: 0, total: total))
            var done = 0
            var indexed = 0
            for name in schema.entityNames {
                let entity = try schema.entity(named: name)
                let rows = try Row.fetchCursor(db, sql: "SELECT * FROM \(name.quotedDatabaseIdentifier)")
                while let row = try rows.next() {
                    done += 1
                    let key: DatabaseValue = row[entity.key]
                    if let attributes = try attributeSet(entity: entity, key: key, row: row, db: db, provider: provider) {
                        let built = try builder.document(entity: entity, key: key, attributes: attributes)
                        _ = try writer.replaceDocument(uniqueTerm: built.idTerm, document: built.document)
                        indexed += 1
                    }
                    if done % 1000 == 0 { progress?(IndexProgress(done: done, total: total)) }
                }
            }
            progress?(IndexProgress(done: done, total: total))
            return (token, indexed)
        }
    }

    private static func syncTree(_ path: String) throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for name in names {
            let fd = open(path + "/" + name, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            let result = fsync(fd)
            close(fd)
            guard result == 0 else { throw SearchError.cannotWrite(path: path + "/" + name, reason: String(cString: strerror(errno))) }
        }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { fsync(fd); close(fd) }
    }
}
