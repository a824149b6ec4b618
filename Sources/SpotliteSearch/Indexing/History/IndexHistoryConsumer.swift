import GRDB
import SpotliteStore

/// Where history becomes documents: the index as a `HistoryConsumer`. The library's `HistoryConsumerDriver` pages
/// the history and collapses it into records; this consumer reads each record's document
/// (``IndexRecordReader``) and hands the batch to the ``IndexUpdater``, which writes the shards.
///
/// The index's truth is the checkpoint committed in every shard with its documents (``IndexCheckpoint``), so the
/// resume point is the consumer's own; a resynchronisation is a rebuild into a new generation switched in
/// atomically. Every hook runs on the driver's thread, calling the updater directly: a round crosses no actor.
///
/// The indexer owns the driver, which owns this consumer, which holds the updater and live mode (never the indexer,
/// nor the driver: live mode holds it weakly): an app that
/// releases a live indexer without `stop()` releases it at once; the indexer retires the updater (its shards close,
/// then its writer lock goes), and a round in progress then ends at its next step with `CancellationError`, which
/// the driver takes as a stop (no retry, nothing saved past what the shards committed).
struct IndexHistoryConsumer: HistoryConsumer {
    let updater: IndexUpdater
    let reader: IndexRecordReader
    /// Told how each round ended: a live round's failure is its ``IndexLiveMode/lastError``.
    let liveMode: IndexLiveMode
    let consumerName: String

    /// Changes of indexed entities, except updates of columns no field reads (unless a document provider decides
    /// documents: it may read anything).
    func includes(_ change: HistoryChange) -> Bool {
        reader.indexes(change)
    }

    func document(for record: RecordID, in db: Database) throws -> RecordDocument? {
        try reader.documents(for: [record], in: db)[0]
    }

    func documents(for records: [RecordID], in db: Database) throws -> [RecordDocument?] {
        try reader.documents(for: records, in: db)
    }

    func relatedRecords(of records: [RecordID], in db: Database) throws -> [RecordID] {
        try reader.dependents(of: records, in: db)
    }

    nonisolated(nonsending) func resumePoint() async throws -> HistoryResumePoint {
        try updater.resumePoint()
    }

    nonisolated(nonsending) func resynchronizationReason(resumingAfter cursor: HistoryCursor) async throws -> String? {
        try updater.resynchronizationReason()
    }

    nonisolated(nonsending) func resynchronize(because reason: HistoryResynchronizationReason,
                                               from store: SpotliteStore) async throws -> HistoryResynchronization {
        .completed(through: try updater.rebuild(because: reason))
    }

    nonisolated(nonsending) func apply(_ batch: HistoryBatch<RecordDocument>) async throws {
        try updater.apply(batch)
    }

    nonisolated(nonsending) func flush() async throws {
        try updater.flush()
    }

    nonisolated(nonsending) func roundWillBegin(number: Int, resynchronizing reason: HistoryResynchronizationReason?)
        async throws {
        try updater.beginRound(resynchronizing: reason)
    }

    nonisolated(nonsending) func roundDidEnd(number: Int, result: Result<HistoryConsumerRound, any Error>) async {
        updater.endRound(result)
        liveMode.roundDidEnd(result)
    }
}
