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
    /// The indexer's own work (the writer lock, emptying placed shards) runs on a queue of its own, off Swift's
    /// cooperative thread pool; the rounds run on the history driver's, which is just as much apart.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    /// How many times a task has hopped onto the indexer's executor so far (the tests count a round's hops).
    package nonisolated var executorHops: Int { executor.jobsEnqueued }

    let schema: IndexSchema
    let directory: IndexDirectory
    let provider: (any IndexDocumentProvider)?
    let logger: Logger
    let broadcaster = IndexUpdateBroadcaster()
    /// Writes the index: applies each round's history, rebuilds. The driver's rounds call it on the driver's own
    /// thread; the indexer only starts and ends updates (and retires it when released).
    let updater: IndexUpdater
    /// Live mode (``start()`` to ``stop()``): the writer lock and the driver it holds meanwhile, and what its last
    /// round left (``lastError``).
    let liveMode: IndexLiveMode
    /// The index's writer lock while anyone holds it (an update, a deletion, live mode: each keeps the value as
    /// long as it needs the lock, which is released with the last of them).
    weak var lock: IndexWriterLock?
    /// The library's history loop, driving ``IndexHistoryConsumer``; made at the first update (it registers the
    /// indexer as a consumer of the store).
    var historyDriver: HistoryConsumerDriver<IndexHistoryConsumer>?
    /// The last update queued; the next one starts when it ends (updates never overlap; the driver's rounds,
    /// live ones included, never overlap either).
    var lastUpdate: Task<Void, Never>?
    /// Set by ``stop()`` without waiting for the actor: an update in progress checks it between batches (after a
    /// commit, so what is indexed stays exact) and returns early, so stopping never waits for a whole backlog.
    nonisolated let stopRequest = StopRequest()

    /// The last error live indexing met, or nil after a successful update (it retries with a growing delay): a
    /// ``SearchError`` for the index's own failures (its ``SearchError/recovery`` is the way out), else the error
    /// of the store or of the document provider as it was thrown. Its description is what the indexer logs.
    public var lastError: (any Error)? { liveMode.lastError }

    /// A flag shared with whoever asks the indexer to stop, readable without the actor.
    final class StopRequest: Sendable {
        private let flag = Mutex(false)
        var isSet: Bool { flag.withLock { $0 } }
        func set(_ value: Bool) { flag.withLock { $0 = value } }
    }

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
        self.updater = IndexUpdater(store: store, indexPath: self.indexPath, configuration: configuration,
                                    schema: schema, directory: directory, provider: documentProvider,
                                    logger: self.logger, broadcaster: broadcaster, stopRequest: stopRequest)
        self.liveMode = IndexLiveMode(logger: self.logger)
    }

    /// Released without ``stop()``, maybe during a live round (which then ends at its next step): the updater
    /// closes the round's shards first, waiting for their queued work, so that the writer lock, released after
    /// them, frees an index the next indexer can open at once. While a step of the round runs, that happens on
    /// another thread once the step ends, so that releasing an indexer never blocks the releasing thread.
    deinit {
        stopRequest.set(true)
        // Live mode's lock is released at the end of this scope, or once the updater retired on another thread.
        let lock = liveMode.end()?.lock
        if updater.retireIfIdle() { return }
        let updater = self.updater
        DispatchQueue.global(qos: .utility).async {
            updater.retire()
            withExtendedLifetime(lock) {}
        }
    }

    /// Reports rebuild progress (records done out of the total) to `handler`, on the thread that rebuilds.
    public func setProgressHandler(_ handler: (@Sendable (IndexProgress) -> Void)?) {
        updater.settings.withLock { $0.progressHandler = handler }
    }

    /// Calls `hook` right after each shard's commit, on that shard's thread (the crash suite kills the process there).
    package func setShardCommitHook(_ hook: (@Sendable (_ shard: Int, _ token: Int64) -> Void)?) {
        updater.settings.withLock { $0.shardCommitHook = hook }
    }

    /// Sets the share of the documents past which a backlog is applied by a rebuild (nil: always incrementally).
    package func setBacklogRebuildShare(_ share: Double?) {
        updater.settings.withLock { $0.backlogRebuildShare = share }
    }

    func setDocumentWriteHook(_ hook: (@Sendable (_ idTerm: String, _ document: XapianDocument) throws -> Void)?) {
        updater.settings.withLock { $0.documentWriteHook = hook }
    }

    // MARK: - Updating

    /// Brings the index up to date: applies the history after the index's token, rebuilding first when needed
    /// (the summary says why). The library's `HistoryConsumerDriver` reads the history: the index commits its
    /// checkpoint with its documents, so the driver resumes from there and saves the position in the store only
    /// up to what every shard has committed. Updates never overlap: a call made while one runs waits for it.
    ///
    /// - Throws: ``SearchError/indexLocked(path:holderPID:)`` when another indexer updates the index; the store's
    ///   errors; ``SearchError/engine(_:outcome:)`` when Xapian keeps failing a write (nothing past the last
    ///   successful commit is recorded, so the next update retries those changes);
    ///   ``SearchError/historyDeletedWhileRebuilding(path:purgedThrough:rebuilds:)`` when the store's history keeps
    ///   being deleted before the index can read what follows its rebuilds.
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

    /// Runs `body` after the updates queued before it: an update awaits the history driver, and another call
    /// must not start meanwhile (it would remove the generation a rebuild is writing). Runs to its end even if the
    /// caller is cancelled.
    func queued<T: Sendable>(_ body: @escaping @Sendable (isolated SpotliteIndexer) async throws -> T)
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
        let lock = try writerLock()
        return try withExtendedLifetime(lock) { try body() }
    }

    /// The writer lock: the one held already (by live mode, or an update in progress), else taken now. It stays
    /// held as long as someone keeps the value returned.
    func writerLock() throws -> IndexWriterLock {
        if let lock { return lock }
        let taken = try acquireLock()
        lock = taken
        return taken
    }

    private func acquireLock() throws -> IndexWriterLock {
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
        let consumer = IndexHistoryConsumer(updater: updater, reader: IndexRecordReader(schema: schema, provider: provider),
                                            liveMode: liveMode, consumerName: consumerName)
        // The indexer logs its rebuilds and failures itself; the driver's own lines would say them twice.
        let driver = try HistoryConsumerDriver(
            store: store, consumer: consumer, start: .snapshot, maximumChanges: max(1, configuration.indexer.batchSize),
            coalescingDelay: coalescingDelay,
            logger: Logger(label: "spotlite.indexer.history") { _ in SwiftLogNoOpLogHandler() }, clock: clock)
        historyDriver = driver
        return driver
    }

    private func performUpdate(forcedReason: IndexRebuildReason?) async throws -> IndexUpdateSummary {
        let lock = try writerLock()
        defer { withExtendedLifetime(lock) {} }
        let started = ContinuousClock.now
        updater.beginUpdate()
        var finished = false
        defer { if !finished { _ = updater.finishUpdate(started: started) } }
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
                    updater.force(reason)
                    try await driver.resynchronize(reason: reason.description)
                } else {
                    try await driver.processPending()
                }
                break
            } catch is CancellationError {
                // stop(): what is committed is exact; the rest is applied by the next update.
                break
            } catch let SearchError.engine(error, outcome) where error.code.isDamage {
                // Opening the index read its metadata fine, but a table is truncated or corrupt further in.
                damageRebuilds += 1
                guard damageRebuilds <= 1 else {
                    throw SearchError.engine(error, outcome: outcome ?? .indexAtLastCommit(nextUpdateRetries: false))
                }
                forced = IndexUpdater.damageReason(error)
            } catch SpotliteStoreError.expiredToken(let requested, let purgedThrough) {
                // The driver resynchronised twice in this round and the history after each rebuild was deleted
                // again (a short [history] maximum_duration beside a cleaning loop). `index watch` retries such
                // rounds; an update does too, a bounded number of times, saying why in its summary.
                expiredRebuilds += 1
                guard expiredRebuilds <= Self.maximumExpiredRebuilds else {
                    throw SearchError.historyDeletedWhileRebuilding(path: indexPath, purgedThrough: purgedThrough,
                                                                    rebuilds: updater.rebuildsInUpdate)
                }
                forced = .historyDeleted(requested: requested, purgedThrough: purgedThrough)
            } catch SearchError.engine(let error, nil) where error.code != .databaseLock {
                // A failed write discards every change since the last commit, metadata included, so the
                // checkpoint in the index still says exactly what it holds: replay from there.
                replays += 1
                logger.warning("index write failed (\(error)); replaying from the last committed token (attempt \(replays))")
                guard replays <= Self.maximumReplays else {
                    throw SearchError.engine(error, outcome: .indexAtLastCommit(nextUpdateRetries: true))
                }
                forced = nil
            }
        }
        finished = true
        return updater.finishUpdate(started: started)
    }

    /// How many times a batch that Xapian failed to write is replayed before the update gives up.
    static let maximumReplays = 3

    /// Pending changes past this share of the index's documents are applied by a rebuild instead
    /// (``IndexRebuildPolicy/rebuildShare``).
    package static var rebuildShare: Double { IndexRebuildPolicy.rebuildShare }

    /// How many more rebuilds an update makes when the history after a rebuild keeps being deleted before it is
    /// read (beyond the driver's own two).
    static let maximumExpiredRebuilds = 2
}

/// The indexer consumes history with its own position (its author), so trackers and cleaners configured with it
/// wait for what it has not indexed.
extension SpotliteIndexer: HistoryPositionHolder {
    /// The indexer's position name: ``IndexerConfiguration/author``.
    public nonisolated var consumerName: String { configuration.indexer.author }
}
