import Foundation
import GRDB
import Logging
import SpotliteStore
import Synchronization

/// The history-driven search indexer: a Spotlight delegate for SQLite on Linux.
///
/// It keeps a Xapian index in step with a `SpotliteStore` by consuming the store's persistent history after the
/// token recorded in the index, and records its own position in the store (as the author
/// ``IndexerConfiguration/author``) so that shared cleanup never deletes history it has not indexed.
///
/// - The index's metadata token is the truth; it is committed atomically with the documents. The position in the
///   store follows each commit, so it may lag, never lead.
/// - When the index cannot be brought up to date from history (no index yet, history purged past its token, a
///   different store, a changed configuration, another index format), it is rebuilt: a snapshot of every row at a
///   known token is indexed into a new generation beside the live one, switched in atomically, then the history
///   after that token is applied. Searches keep answering from the old generation until the switch; an interrupted
///   rebuild (even `kill -9`) leaves it intact.
/// - One indexer per index, across processes: a second one gets ``SearchError/indexLocked(path:holderPID:)``.
///
/// ```swift
/// let indexer = try SpotliteIndexer(store: store, configuration: configuration)
/// let summary = try await indexer.update()      // catch up once
/// try await indexer.start()                      // or follow every commit, from any process
/// ```
public actor SpotliteIndexer {
    /// The store whose history the index follows.
    public nonisolated let store: SpotliteStore
    /// What is indexed, and how.
    public nonisolated let configuration: SpotliteConfiguration
    /// The index directory.
    public nonisolated let indexPath: String
    /// How long live indexing lets a burst of writes gather before applying them in one update.
    public nonisolated let coalescingDelay: Duration
    /// The clock live indexing waits on (the coalescing delay, retry delays).
    nonisolated let clock: any Clock<Duration>

    private nonisolated let executor = DedicatedExecutor(label: "spotlite.indexer")
    /// Indexing runs on a queue of its own, off Swift's cooperative thread pool: a rebuild of a large store takes
    /// tens of seconds of synchronous SQLite and Xapian work.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    let schema: IndexSchema
    let directory: IndexDirectory
    let provider: (any IndexDocumentProvider)?
    let logger: Logger
    let broadcaster = IndexUpdateBroadcaster()
    var lock: IndexWriterLock?
    var liveTask: Task<Void, Never>?
    /// When the update in progress began, and what its previous commit had posted: each post tells its own share.
    var updateStarted = ContinuousClock.now
    var lastPosted = IndexUpdateSummary()
    var progressHandler: (@Sendable (IndexProgress) -> Void)?
    /// Called with each document just before it is written; lets tests make Xapian fail a write for real.
    var documentWriteHook: (@Sendable (_ idTerm: String, _ document: XapianDocument) throws -> Void)?
    /// Called on a shard's thread right after each shard commit; lets the crash suite kill the process between them.
    var shardCommitHook: (@Sendable (_ shard: Int, _ token: Int64) -> Void)?
    /// Pending inserts and updates past this share of the documents are applied by a rebuild instead; nil: never
    /// (the benchmarks measure both paths on the same backlog).
    var backlogRebuildShare: Double? = SpotliteIndexer.rebuildShare
    /// The last error live indexing met, or nil after a successful update (it retries with a growing delay).
    public internal(set) var lastError: String?
    /// Set by ``stop()`` without waiting for the actor: an update in progress checks it between batches (after a
    /// commit, so what is indexed stays exact) and returns early, so stopping never waits for a whole backlog.
    nonisolated let stopRequest = StopRequest()

    /// Thrown out of a rebuild that a ``stop()`` interrupted (the new generation is discarded, the live one kept).
    struct IndexingStopped: Error {}

    /// A flag shared with whoever asks the indexer to stop, readable without the actor.
    final class StopRequest: Sendable {
        private let flag = Mutex(false)
        var isSet: Bool { flag.withLock { $0 } }
        func set(_ value: Bool) { flag.withLock { $0 = value } }
    }

    nonisolated var isStopRequested: Bool { stopRequest.isSet }

    /// Creates an indexer for `store`, indexing what `configuration` describes into `indexPath` (default: the
    /// configuration's index path). Nothing is opened until the first update.
    ///
    /// - Parameters:
    ///   - store: the store whose history the index follows; the indexer saves its position there.
    ///   - configuration: the entities and fields to index, the language, the indexer's author and batch size.
    ///   - indexPath: the index directory (default: the configuration's).
    ///   - documentProvider: the override point deciding each record's document (default: the row's columns).
    ///   - coalescingDelay: in live mode, how long to let further writes arrive after a change notification before
    ///     updating, so a burst of small writes becomes few index commits.
    ///   - logger: where rebuilds, replays and live-mode failures are logged (default: a logger labelled
    ///     `spotlite.indexer`).
    ///   - clock: the clock live indexing waits on, for the coalescing delay and between retries (a test passes a
    ///     clock it advances).
    /// - Throws: ``SearchError/unknownField(_:reason:)`` when the configuration's fields cannot share one index.
    public init(store: SpotliteStore, configuration: SpotliteConfiguration, indexPath: String? = nil,
                documentProvider: (any IndexDocumentProvider)? = nil, coalescingDelay: Duration = .milliseconds(10),
                logger: Logger? = nil, clock: any Clock<Duration> = ContinuousClock()) throws {
        self.store = store
        self.clock = clock
        self.configuration = configuration
        self.indexPath = indexPath ?? configuration.indexPath
        self.coalescingDelay = coalescingDelay
        self.schema = try IndexSchema(configuration: configuration)
        self.directory = IndexDirectory(path: self.indexPath, remote: configuration.remote)
        self.provider = documentProvider
        self.logger = logger ?? Logger(label: "spotlite.indexer")
    }

    /// Reports rebuild progress (records done out of the total) to `handler`, on the indexer's executor.
    public func setProgressHandler(_ handler: (@Sendable (IndexProgress) -> Void)?) {
        progressHandler = handler
    }

    /// Calls `hook` right after each shard's commit, on that shard's thread (the crash suite kills the process there).
    package func setShardCommitHook(_ hook: (@Sendable (_ shard: Int, _ token: Int64) -> Void)?) {
        shardCommitHook = hook
    }

    /// Sets the share of the documents past which a backlog is applied by a rebuild (nil: always incrementally).
    package func setBacklogRebuildShare(_ share: Double?) {
        backlogRebuildShare = share
    }

    func setDocumentWriteHook(_ hook: (@Sendable (_ idTerm: String, _ document: XapianDocument) throws -> Void)?) {
        documentWriteHook = hook
    }

    // MARK: - Updating

    /// Brings the index up to date: applies the history after the index's token, rebuilding first when needed
    /// (the summary says why).
    ///
    /// - Throws: ``SearchError/indexLocked(path:holderPID:)`` when another indexer updates the index; the store's
    ///   errors; ``SearchError/engine(_:outcome:)`` when Xapian keeps failing a write (nothing past the last
    ///   successful commit is recorded, so the next update retries those changes).
    @discardableResult
    public func update() throws -> IndexUpdateSummary {
        try SearchError.translatingEngineErrors { try withWriterLock { try performUpdate(forcedReason: nil) } }
    }

    /// Builds a fresh index from the store's current rows beside the live one, switches to it atomically, then
    /// applies the history committed meanwhile.
    ///
    /// - Throws: the errors of ``update()``.
    @discardableResult
    public func rebuild(reason: String = "a rebuild was requested") throws -> IndexUpdateSummary {
        try SearchError.translatingEngineErrors { try withWriterLock { try performUpdate(forcedReason: reason) } }
    }

    /// Removes the index, the indexer's position in the store and its registration as a consumer, so cleanup stops
    /// waiting for it at once.
    ///
    /// Shards placed at locations (`shards = ["tcp://HOST:PORT", …]`) are emptied through their servers first: every
    /// document the index wrote there and its metadata are deleted and committed, then the shard map goes. Every
    /// shard is opened (and its identity checked) before any is emptied, so a shard that cannot be reached fails the
    /// call with nothing deleted. With `keepingPlacedShards`, only the local state goes (the shard map and the lock):
    /// the documents stay on the servers, and the next build rewrites them by generation tag and sweep.
    /// Refuses while live indexing runs: call ``stop()`` first, or the index would be rebuilt at once.
    ///
    /// - Throws: ``SearchError/indexingRunning`` while live indexing runs;
    ///   ``SearchError/indexLocked(path:holderPID:)`` when another indexer holds the index;
    ///   ``SearchError/shardUnavailable(shard:reason:)`` or ``SearchError/shardIdentityChanged(shard:expected:found:)``
    ///   for a placed shard that cannot be emptied (nothing is deleted then);
    ///   ``SearchError/cannotWrite(path:reason:)`` when the directory cannot be removed; SQLite's errors.
    @discardableResult
    public func deleteIndex(keepingPlacedShards: Bool = false) throws -> IndexDeletion {
        guard liveTask == nil else { throw SearchError.indexingRunning }
        var deletion = IndexDeletion(hadIndex: false)
        try withWriterLock {
            deletion.hadIndex = directory.exists || directory.hasShardMap
            if !keepingPlacedShards, let map = ShardMap.read(in: directory),
               let layout = ShardLayout(directory: directory, map: map) {
                deletion.documentsDeleted = try emptyPlacedShards(layout)
                deletion.emptiedShards = (0..<layout.count).map(layout.shardName)
            }
            do {
                try directory.remove()
            } catch {
                throw SearchError.cannotWrite(path: indexPath, reason: "\(error.localizedDescription)")
            }
        }
        // Unregistered, not only without a position: cleanup stops waiting for it at once (a registered consumer
        // without a position would hold history back for the whole maximum duration).
        try store.unregisterConsumer(configuration.indexer.author)
        return deletion
    }

    /// Deletes every document the index wrote in the placed shards of `layout` (all carry a generation tag) and the
    /// index's metadata there; returns how many documents went.
    private func emptyPlacedShards(_ layout: ShardLayout) throws -> Int {
        // All opened first: a shard down or replaced fails before anything is deleted anywhere.
        var writers: [XapianWritableDatabase] = []
        defer { for writer in writers { try? writer.close() } }
        for shard in 0..<layout.count {
            do {
                writers.append(try layout.openWriter(shard, action: .open, noSync: false, checkIdentity: true))
            } catch let error as XapianError {
                throw SearchError.engine(error, outcome: "while opening shard \(layout.shardName(shard)) to empty it; nothing was deleted")
            }
        }
        var deleted = 0
        for (shard, writer) in writers.enumerated() {
            do {
                let before = try writer.documentCount()
                try writer.sweep(prefix: ShardMap.tagPrefix, keeping: ShardMap.tagPrefix)
                for key in IndexMetadata.allKeys { try writer.setMetadata("", forKey: key) }
                try writer.commit()
                deleted += before - (try writer.documentCount())
            } catch {
                let named = ShardLayout.naming(error, shard: layout.shardName(shard))
                if let error = named as? XapianError {
                    throw SearchError.engine(error, outcome: "while emptying shard \(layout.shardName(shard)); the shard map stays until every shard is emptied: run `spotlite index delete` again")
                }
                throw named
            }
        }
        return deleted
    }

    /// Every commit of the index from now on, with the token it reflects (like Core Spotlight's index-did-update
    /// notification). Several observers may listen at once; a slow one sees the newest 64.
    public nonisolated func indexUpdates() -> AsyncStream<IndexDidUpdate> {
        broadcaster.subscribe()
    }

    func withWriterLock<T>(_ body: () throws -> T) throws -> T {
        if lock != nil { return try body() }
        lock = try acquireLock()
        defer { lock = nil }
        return try body()
    }

    func acquireLock() throws -> IndexWriterLock {
        // A replica's databases are Xapian's replication targets: a write there would fork them from the master's.
        if let source = directory.replicaSource {
            throw ReplicationError.replicaIsReadOnly(path: directory.path, source: source)
        }
        try directory.create()
        return try IndexWriterLock(directory: directory)
    }

    private func performUpdate(forcedReason: String?) throws -> IndexUpdateSummary {
        let clock = ContinuousClock()
        let started = clock.now
        updateStarted = started
        lastPosted = IndexUpdateSummary()
        var summary = IndexUpdateSummary()
        _ = try store.sealPendingChanges()
        // Triggers dropped or a table rebuilt by another program since the last pass: re-create them now, and let
        // rebuildReason() compare the store's gap count with the index's (history cannot tell what was missed).
        try store.verifyCapture()
        // Leftovers of a rebuild that was killed: only the lock holder writes generations, so they are dead.
        directory.removeStaleGenerations()
        var reason = try forcedReason ?? rebuildReason()
        var rebuilds = 0
        while true {
            if let why = reason {
                rebuilds += 1
                try rebuildGeneration(reason: why, into: &summary)
                reason = nil
            }
            do {
                try applyHistory(into: &summary)
                break
            } catch let HistoryError.expiredToken(requested, purgedThrough) {
                // History was purged past the index's token (possibly while a rebuild ran): only rows can tell
                // what changed. Twice in a row means cleanup outpaces rebuilding: say so rather than loop.
                guard rebuilds < 2 else {
                    throw HistoryError.expiredToken(requested: requested, purgedThrough: purgedThrough)
                }
                reason = "the history after token \(requested.map { "\($0)" } ?? "0") was deleted (through token \(purgedThrough)) before the index consumed it"
            } catch let SearchError.engine(error, _) where rebuilds < 2 && error.code.isDamage {
                // Opening the index read its metadata fine, but a table is truncated or corrupt further in.
                reason = "the index is damaged (\(error.type): \(error.message))"
            }
        }
        let elapsed = clock.now - started
        summary.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return summary
    }

    /// Posts a commit to ``indexUpdates()`` observers: the update's running summary, and this commit's share.
    func postCommit(token: HistoryToken?, summary: IndexUpdateSummary) {
        var summary = summary
        summary.seconds = Self.seconds(ContinuousClock.now - updateStarted)
        var commit = IndexUpdateSummary()
        commit.token = token
        commit.transactions = summary.transactions - lastPosted.transactions
        commit.changes = summary.changes - lastPosted.changes
        commit.indexed = summary.indexed - lastPosted.indexed
        commit.deleted = summary.deleted - lastPosted.deleted
        commit.rebuilt = summary.rebuilt && !lastPosted.rebuilt
        commit.reason = commit.rebuilt ? summary.reason : nil
        commit.seconds = summary.seconds - lastPosted.seconds
        lastPosted = summary
        broadcaster.post(IndexDidUpdate(token: token, summary: summary, commit: commit))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Saves the indexer's position in the store after a commit. A failure here is not the index's: the position
    /// only lags (holding history a little longer), and the next commit saves it again.
    func advancePosition(to token: HistoryToken?) {
        guard let token else { return }
        do {
            try store.saveConsumerPosition(token, for: configuration.indexer.author)
        } catch {
            logger.warning("could not save the indexer's position \(token) in the store: \(error); the next commit retries")
        }
    }
}
