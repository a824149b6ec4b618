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
    /// The index's writer lock, held while anyone needs it (``lockUsers``): an update, live mode.
    var lock: IndexWriterLock?
    var lockUsers = 0
    /// Whether live mode runs (the history driver's own, between ``start()`` and ``stop()``).
    var isLive = false
    /// The library's history loop, driving ``IndexHistoryConsumer``; made at the first update (it registers the
    /// indexer as a consumer of the store).
    var historyDriver: HistoryConsumerDriver<IndexHistoryConsumer>?
    /// The shards open during a round of the driver.
    var historyRound: HistoryRound?
    /// Why the index must be rebuilt before history is applied, found at the start of a round.
    var pendingRebuildReason: IndexRebuildReason?
    /// Damage a failed live round met: the next round rebuilds.
    var damageRebuildReason: IndexRebuildReason?
    /// The reason ``performUpdate(forcedReason:)`` gave the driver, until the round it starts takes it.
    var forcedRebuildReason: IndexRebuildReason?
    /// Set while ``update()`` or ``rebuild(reason:)`` runs its rounds: they add up into one summary.
    var updateInProgress = false
    /// The checkpoint of the generation the update just built, until shards are opened for history.
    var rebuiltCheckpoint: IndexCheckpoint?
    /// The summary of the update in progress.
    var summary = IndexUpdateSummary()
    /// The last update queued; the next one starts when it ends (updates never overlap; the driver's rounds,
    /// live ones included, never overlap either).
    var lastUpdate: Task<Void, Never>?
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
    /// - Throws: ``ConfigurationError`` (kind ``ConfigurationError/Kind/conflict``) when the configuration's fields
    ///   cannot share one index (a configuration that passed ``SpotliteConfiguration/validate(source:)`` always can).
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

    /// Released without ``stop()``, maybe between two steps of a live round (the driver's round then ends at its
    /// next step): the round's shards close first, waiting for their queued work, so that the writer lock,
    /// released after this, frees an index the next indexer can open at once. On the indexer's executor, like
    /// every other use of the shards.
    isolated deinit {
        if let round = historyRound { try? round.writer.close() }
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
    /// (the summary says why). The library's `HistoryConsumerDriver` reads the history: the index commits its
    /// checkpoint with its documents, so the driver resumes from there and saves the position in the store only
    /// up to what every shard has committed. Updates never overlap: a call made while one runs waits for it.
    ///
    /// - Throws: ``SearchError/indexLocked(path:holderPID:)`` when another indexer updates the index; the store's
    ///   errors; ``SearchError/engine(_:outcome:)`` when Xapian keeps failing a write (nothing past the last
    ///   successful commit is recorded, so the next update retries those changes).
    @discardableResult
    public func update() async throws -> IndexUpdateSummary {
        try await queued { indexer in try await indexer.performUpdate(forcedReason: nil) }
    }

    /// Builds a fresh index from the store's current rows beside the live one, switches to it atomically, then
    /// applies the history committed meanwhile.
    ///
    /// - Throws: the errors of ``update()``.
    @discardableResult
    public func rebuild(reason: String = "a rebuild was requested") async throws -> IndexUpdateSummary {
        try await queued { indexer in try await indexer.performUpdate(forcedReason: .requested(reason)) }
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
    ///   ``SearchError/indexPartlyDeleted(shard:error:)`` when a shard fails once emptying has begun;
    ///   ``SearchError/cannotWrite(path:reason:)`` when the directory cannot be removed; SQLite's errors.
    @discardableResult
    public func deleteIndex(keepingPlacedShards: Bool = false) async throws -> IndexDeletion {
        guard !isLive else { throw SearchError.indexingRunning }
        return try await queued { indexer in try indexer.performDeletion(keepingPlacedShards: keepingPlacedShards) }
    }

    private func performDeletion(keepingPlacedShards: Bool) throws -> IndexDeletion {
        guard !isLive else { throw SearchError.indexingRunning }
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
        // without a position would hold history back for the whole maximum duration). The next update registers
        // it again, with a driver of its own.
        historyDriver = nil
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
                try writer.sweep(prefix: ShardMap.tagPrefix, keeping: ShardMap.tagPrefix,
                                 spellingSlot: layout.recordsSpelling(shard) ? DocumentBuilder.recordSlot : nil)
                for key in IndexMetadata.allKeys { try writer.setMetadata("", forKey: key) }
                try writer.commit()
                deleted += before - (try writer.documentCount())
            } catch {
                let named = ShardLayout.naming(error, shard: layout.shardName(shard))
                if let error = named as? XapianError {
                    throw SearchError.indexPartlyDeleted(shard: layout.shardName(shard), error: error)
                }
                throw named
            }
        }
        return deleted
    }

    /// Runs `body` after the updates queued before it: an update awaits the history driver, and another call
    /// must not start meanwhile (it would remove the generation a rebuild is writing). Runs to its end even if the
    /// caller is cancelled.
    private func queued<T: Sendable>(_ body: @escaping @Sendable (isolated SpotliteIndexer) async throws -> T)
        async throws -> T
    {
        let previous = lastUpdate
        let task = Task<T, any Error> {
            await previous?.value
            return try await body(self)
        }
        lastUpdate = Task { _ = await task.result }
        return try await task.value
    }

    /// Every commit of the index from now on, with the token it reflects (like Core Spotlight's index-did-update
    /// notification). Several observers may listen at once; a slow one sees the newest 64.
    public nonisolated func indexUpdates() -> AsyncStream<IndexDidUpdate> {
        broadcaster.subscribe()
    }

    func withWriterLock<T>(_ body: () throws -> T) throws -> T {
        try retainLock()
        defer { releaseLock() }
        return try body()
    }

    /// Takes the writer lock unless held already, for one more user.
    func retainLock() throws {
        if lock == nil { lock = try acquireLock() }
        lockUsers += 1
    }

    /// Releases the writer lock once its last user is done.
    func releaseLock() {
        lockUsers -= 1
        if lockUsers == 0 { lock = nil }
    }

    func acquireLock() throws -> IndexWriterLock {
        // A replica's databases are Xapian's replication targets: a write there would fork them from the master's.
        if let source = directory.replicaSource {
            throw ReplicationError.replicaIsReadOnly(path: directory.path, source: source)
        }
        try directory.create()
        return try IndexWriterLock(directory: directory)
    }

    /// The history driver, made on first use: it runs every round, on demand (``update()``) and live (``start()``).
    func makeHistoryDriver() throws -> HistoryConsumerDriver<IndexHistoryConsumer> {
        if let historyDriver { return historyDriver }
        let consumer = IndexHistoryConsumer(indexer: self, reader: IndexRecordReader(schema: schema, provider: provider))
        // The indexer logs its rebuilds and failures itself; the driver's own lines would say them twice.
        let driver = try HistoryConsumerDriver(
            store: store, consumer: consumer, start: .snapshot, maximumChanges: max(1, configuration.indexer.batchSize),
            coalescingDelay: coalescingDelay,
            logger: Logger(label: "spotlite.indexer.history") { _ in SwiftLogNoOpLogHandler() }, clock: clock)
        historyDriver = driver
        return driver
    }

    private func performUpdate(forcedReason: IndexRebuildReason?) async throws -> IndexUpdateSummary {
        try retainLock()
        defer { releaseLock() }
        let started = ContinuousClock.now
        resetSummary()
        updateInProgress = true
        defer { updateInProgress = false }
        do {
            let driver = try makeHistoryDriver()
            var forced = forcedReason
            var replays = 0
            var damageRebuilds = 0
            var expiredRebuilds = 0
            while true {
                do {
                    // History purged past the index's token is the driver's to notice: it has the index rebuilt
                    // (twice at most: more means cleanup outpaces rebuilding, and it says so). A reason known
                    // already reaches beginRound(resynchronizing:), so the resume point neither opens nor judges
                    // the index being replaced.
                    if let reason = forced {
                        forcedRebuildReason = reason
                        try await driver.resynchronize(reason: reason.description)
                    } else {
                        try await driver.processPending()
                    }
                    break
                } catch is CancellationError {
                    // stop(): what is committed is exact; the rest is applied by the next update.
                    break
                } catch let error as XapianError where error.code.isDamage {
                    // Opening the index read its metadata fine, but a table is truncated or corrupt further in.
                    damageRebuilds += 1
                    guard damageRebuilds <= 1 else {
                        throw SearchError.engine(error, outcome: "the index stays at its last committed token")
                    }
                    forced = Self.damageReason(error)
                } catch let SearchError.engine(error, outcome) where error.code.isDamage {
                    damageRebuilds += 1
                    guard damageRebuilds <= 1 else { throw SearchError.engine(error, outcome: outcome) }
                    forced = Self.damageReason(error)
                } catch HistoryError.expiredToken(let requested, let purgedThrough) {
                    // The driver resynchronised twice in this round and the history after each rebuild was deleted
                    // again (a short [history] maximum_duration beside a cleaning loop). `index watch` retries such
                    // rounds; an update does too, a bounded number of times, saying why in its summary.
                    expiredRebuilds += 1
                    guard expiredRebuilds <= Self.maximumExpiredRebuilds else {
                        throw SearchError.cannotWrite(path: indexPath, reason: "the store's history is deleted faster than the index consumes it (deleted through token \(purgedThrough) while rebuilding, \(expiredRebuilds) times); raise [history] maximum_duration so that it outlasts a rebuild, or keep the index up to date with `spotlite index watch`")
                    }
                    forced = .historyDeleted(requested: requested, purgedThrough: purgedThrough)
                } catch let error as XapianError where error.code != .databaseLock {
                    // A failed write discards every change since the last commit, metadata included, so the
                    // checkpoint in the index still says exactly what it holds: replay from there.
                    replays += 1
                    logger.warning("index write failed (\(error)); replaying from the last committed token (attempt \(replays))")
                    guard replays <= Self.maximumReplays else {
                        throw SearchError.engine(error, outcome: "the index stays at its last committed token; the next update retries")
                    }
                    forced = nil
                }
            }
        } catch let error as XapianError {
            throw SearchError.engine(error)
        }
        summary.seconds = Self.seconds(ContinuousClock.now - started)
        return summary
    }

    /// How many more rebuilds an update makes when the history after a rebuild keeps being deleted before it is
    /// read (beyond the driver's own two).
    static let maximumExpiredRebuilds = 2

    static func damageReason(_ error: XapianError) -> IndexRebuildReason {
        .damaged(detail: "\(error.type): \(error.message)")
    }

    /// A fresh summary, for an update or a live round.
    private func resetSummary() {
        updateStarted = ContinuousClock.now
        lastPosted = IndexUpdateSummary()
        summary = IndexUpdateSummary()
        rebuiltCheckpoint = nil
    }

    /// The start of one of the driver's rounds: a live round gets a summary of its own (the rounds of one
    /// ``update()`` add up); the store's pending changes are sealed and its capture checked, as before any
    /// reading of history.
    func beginRound(resynchronizing reason: HistoryResynchronizationReason?) throws {
        if !updateInProgress { resetSummary() }
        // The update's own reason, when it asked the driver (performUpdate), keeps its case.
        let forced = forcedRebuildReason
        forcedRebuildReason = nil
        if case .requested(let why) = reason {
            pendingRebuildReason = forced ?? .requested(why)
        } else {
            pendingRebuildReason = damageRebuildReason
        }
        damageRebuildReason = nil
        _ = try store.sealPendingChanges()
        // Triggers dropped or a table rebuilt by another program since the last pass: re-create them now, and let
        // rebuildReason() compare the store's gap count with the index's (history cannot tell what was missed).
        try store.verifyCapture()
        // Leftovers of a rebuild that was killed: only the lock holder writes generations, so they are dead.
        directory.removeStaleGenerations()
    }

    /// The end of one of the driver's rounds: the shards close; a live round's failure is kept in ``lastError``
    /// (the driver retries it with a growing delay), and damage has the next round rebuild.
    func endRound(_ result: Result<HistoryConsumerRound, any Error>) {
        closeHistoryRound()
        if !updateInProgress { summary.seconds = Self.seconds(ContinuousClock.now - updateStarted) }
        switch result {
        case .success:
            lastError = nil
        case .failure(let error):
            if error is CancellationError { return }
            var engineError = error as? XapianError
            if case SearchError.engine(let inner, _) = error { engineError = inner }
            if let engineError, engineError.code.isDamage { damageRebuildReason = Self.damageReason(engineError) }
            guard isLive else { return }
            let shown = (error as? XapianError).map { SearchError.engine($0) as any Error } ?? error
            lastError = "\(shown)"
            logger.error("live index update failed: \(shown); retrying")
        }
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
        commit.unreadableValues = summary.unreadableValues - lastPosted.unreadableValues
        commit.unreadableExamples = Array(summary.unreadableExamples.dropFirst(lastPosted.unreadableExamples.count))
        commit.rebuilt = summary.rebuilt && !lastPosted.rebuilt
        commit.reason = commit.rebuilt ? summary.reason : nil
        commit.seconds = summary.seconds - lastPosted.seconds
        lastPosted = summary
        broadcaster.post(IndexDidUpdate(token: token, summary: summary, commit: commit))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
