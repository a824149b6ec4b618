import Foundation
import Logging
import SpotliteStore
import Synchronization

/// Writes the index: applies the history the driver reads (``IndexRound``, one per round of the driver) and
/// rebuilds it when history cannot bring it up to date. ``SpotliteIndexer`` is its public front: it takes the
/// writer lock and queues updates, ``IndexLiveMode`` runs live mode; ``IndexHistoryConsumer`` hands it each round's
/// history.
///
/// It runs where it is called: the driver's rounds call it on the driver's own thread (so a round never waits for
/// the indexer's actor), the indexer calls it for an update's summary. Its state is behind one lock, held while a
/// step of a round runs; rounds never overlap (the driver queues them).
final class IndexUpdater: Sendable {
    /// What tests and tools may change between updates: read when a round or a rebuild starts.
    struct Settings: Sendable {
        /// Called with each document just before it is written; lets tests make Xapian fail a write for real.
        var documentWriteHook: (@Sendable (_ idTerm: String, _ document: XapianDocument) throws -> Void)?
        /// Called on a shard's thread right after each shard commit; lets the crash suite kill the process there.
        var shardCommitHook: (@Sendable (_ shard: Int, _ token: Int64) -> Void)?
        /// Pending inserts and updates past this share of the documents are applied by a rebuild instead; nil:
        /// never (the benchmarks measure both paths on the same backlog).
        var backlogRebuildShare: Double? = IndexRebuildPolicy.rebuildShare
        /// Reports rebuild progress.
        var progressHandler: (@Sendable (IndexProgress) -> Void)?
    }

    /// What an update and a round leave for the next step.
    struct State {
        /// The round in progress, once its first batch (or its resume point) opened the shards.
        var round: IndexRound?
        /// Why the index must be rebuilt before history is applied, found at the start of a round.
        var pendingRebuildReason: IndexRebuildReason?
        /// Damage a failed live round met: the next round rebuilds.
        var damageRebuildReason: IndexRebuildReason?
        /// The reason an update gave the driver (``force(_:)``), until the round it starts takes it.
        var forcedRebuildReason: IndexRebuildReason?
        /// Set while an update or a rebuild runs its rounds: they add up into one summary.
        var updateInProgress = false
        /// The checkpoint of the generation the round just built, until shards are opened for history.
        var rebuiltCheckpoint: IndexCheckpoint?
        /// The summary of the update (or live round) in progress.
        var summary = IndexUpdateSummary()
        /// When it began, and what its previous commit had posted: each post tells its own share.
        var updateStarted = ContinuousClock.now
        var lastPosted = IndexUpdateSummary()
        /// How many rebuilds went live since the summary began (an update gives up when history keeps being
        /// deleted after them, and says how many).
        var rebuilds = 0
        /// Set once the indexer is gone: every later step of a round ends it with `CancellationError`.
        var isRetired = false

        /// A fresh summary, for an update or a live round.
        mutating func resetSummary() {
            updateStarted = ContinuousClock.now
            lastPosted = IndexUpdateSummary()
            summary = IndexUpdateSummary()
            rebuilds = 0
            rebuiltCheckpoint = nil
        }
    }

    let store: SpotliteStore
    /// The index directory's path, as errors name it (as the indexer was given it).
    let indexPath: String
    let configuration: SpotliteConfiguration
    let schema: IndexSchema
    let directory: IndexDirectory
    let provider: (any IndexDocumentProvider)?
    let logger: Logger
    let broadcaster: IndexUpdateBroadcaster
    let stopRequest: SpotliteIndexer.StopRequest
    let settings = Mutex(Settings())
    let state = Mutex(State())

    init(store: SpotliteStore, indexPath: String, configuration: SpotliteConfiguration, schema: IndexSchema, directory: IndexDirectory,
         provider: (any IndexDocumentProvider)?, logger: Logger, broadcaster: IndexUpdateBroadcaster,
         stopRequest: SpotliteIndexer.StopRequest) {
        self.store = store
        self.indexPath = indexPath
        self.configuration = configuration
        self.schema = schema
        self.directory = directory
        self.provider = provider
        self.logger = logger
        self.broadcaster = broadcaster
        self.stopRequest = stopRequest
    }

    var isStopRequested: Bool { stopRequest.isSet }

    /// The settings as they are now.
    var currentSettings: Settings { settings.withLock { $0 } }

    // MARK: - The indexer's side

    /// Starts an update's summary: its rounds add up until ``finishUpdate(started:)``.
    func beginUpdate() {
        state.withLock { state in
            state.resetSummary()
            state.updateInProgress = true
        }
    }

    /// Ends the update begun by ``beginUpdate()`` and returns its summary.
    func finishUpdate(started: ContinuousClock.Instant) -> IndexUpdateSummary {
        state.withLock { state in
            state.updateInProgress = false
            state.summary.seconds = Self.seconds(ContinuousClock.now - started)
            return state.summary
        }
    }

    /// How many rebuilds went live in the update in progress.
    var rebuildsInUpdate: Int { state.withLock { $0.rebuilds } }

    /// Has the next round rebuild for `reason` (an update that asks the driver to resynchronise).
    func force(_ reason: IndexRebuildReason) {
        state.withLock { $0.forcedRebuildReason = reason }
    }

    /// The indexer is gone: closes the round's shards (waiting for their queued work, so the writer lock released
    /// next frees an index the next indexer can open at once) and ends every later step of the round.
    func retire() {
        state.withLock { Self.retire(&$0) }
    }

    /// ``retire()`` at once when no step of a round runs, without waiting for one: false when a step runs.
    func retireIfIdle() -> Bool {
        state.withLockIfAvailable { state in
            Self.retire(&state)
            return true
        } ?? false
    }

    private static func retire(_ state: inout State) {
        state.isRetired = true
        state.round?.close()
        state.round = nil
    }

    // MARK: - The driver's rounds

    /// The start of one of the driver's rounds: a live round gets a summary of its own (the rounds of one update
    /// add up); the store's pending changes are sealed and its capture checked, as before any reading of history.
    func beginRound(resynchronizing reason: HistoryResynchronizationReason?) throws {
        try state.withLock { state in
            try Self.checkNotRetired(state)
            if !state.updateInProgress { state.resetSummary() }
            // The update's own reason, when it asked the driver (force(_:)), keeps its case.
            let forced = state.forcedRebuildReason
            state.forcedRebuildReason = nil
            if case .requested(let why) = reason {
                state.pendingRebuildReason = forced ?? .requested(why)
            } else {
                state.pendingRebuildReason = state.damageRebuildReason
            }
            state.damageRebuildReason = nil
        }
        _ = try store.sealPendingChanges()
        // Triggers dropped or a table rebuilt by another program since the last pass: re-create them now, and let
        // rebuildReason() compare the store's gap count with the index's (history cannot tell what was missed).
        try store.verifyCapture()
        // Leftovers of a rebuild that was killed: only the lock holder writes generations, so they are dead.
        directory.removeStaleGenerations()
    }

    /// The end of one of the driver's rounds: the shards close, and damage has the next round rebuild (live mode
    /// keeps a live round's failure: ``IndexLiveMode/roundDidEnd(_:)``).
    func endRound(_ result: Result<HistoryConsumerRound, any Error>) {
        state.withLock { state in
            guard !state.isRetired else { return }
            state.round?.close()
            state.round = nil
            if !state.updateInProgress { state.summary.seconds = Self.seconds(ContinuousClock.now - state.updateStarted) }
            if case .failure(SearchError.engine(let engineError, _)) = result, engineError.code.isDamage {
                state.damageRebuildReason = Self.damageReason(engineError)
            }
        }
    }

    /// Why the round must rebuild before history is applied (found by ``resumePoint()``), as the driver hears it.
    func resynchronizationReason() throws -> String? {
        try state.withLock { state in
            try Self.checkNotRetired(state)
            return state.pendingRebuildReason?.description
        }
    }

    static func checkNotRetired(_ state: State) throws {
        if state.isRetired { throw CancellationError() }
    }

    // MARK: - Making commits known

    /// Posts a commit to `indexUpdates()` observers: the update's running summary, and this commit's share.
    func postCommit(token: HistoryToken?, state: inout State) {
        var summary = state.summary
        summary.seconds = Self.seconds(ContinuousClock.now - state.updateStarted)
        let lastPosted = state.lastPosted
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
        commit.rebuildCause = commit.rebuilt ? summary.rebuildCause : nil
        commit.seconds = summary.seconds - lastPosted.seconds
        state.lastPosted = summary
        broadcaster.post(IndexDidUpdate(token: token, summary: summary, commit: commit))
    }

    static func damageReason(_ error: XapianError) -> IndexRebuildReason {
        .damaged(detail: "\(error.type): \(error.message)")
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
