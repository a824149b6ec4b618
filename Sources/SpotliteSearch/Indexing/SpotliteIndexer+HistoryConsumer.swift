import GRDB
import SpotliteStore

/// The indexer consumes history with its own position (its author), so trackers and cleaners configured with it
/// wait for what it has not indexed.
extension SpotliteIndexer: HistoryPositionHolder {
    /// The indexer's position name: ``IndexerConfiguration/author``.
    public nonisolated var consumerName: String { configuration.indexer.author }
}

/// A record's document as the index builds it: its entity's indexing rules and the attributes to index.
struct RecordDocument: Sendable {
    var entity: IndexSchema.Entity
    var attributes: AttributeSet
}

/// The indexer as a `HistoryConsumer`: the library's `HistoryConsumerDriver` pages the history, collapses it
/// into records, reads their documents and saves the position; the indexer writes the shards.
///
/// The index's truth is the checkpoint committed in every shard with its documents (``IndexCheckpoint``), so the
/// resume point is the consumer's own; a resynchronisation is a rebuild into a new generation switched in
/// atomically (`rebuildGeneration(reason:into:)`). The Xapian work runs on the indexer's
/// executor; the store reads run on the driver's.
///
/// The indexer owns the driver, which owns this consumer: the consumer holds the indexer weakly, so an app that
/// releases a live indexer without `stop()` releases it at once (its shards close, then its writer lock goes).
/// A round in progress then ends at its next step with `CancellationError`, which the driver takes as a stop
/// (no retry, nothing saved past what the shards committed), and the driver goes with its loop.
struct IndexHistoryConsumer: HistoryConsumer {
    private weak let owner: SpotliteIndexer?
    let reader: IndexRecordReader
    let consumerName: String

    init(indexer: SpotliteIndexer, reader: IndexRecordReader) {
        owner = indexer
        self.reader = reader
        consumerName = indexer.consumerName
    }

    /// The indexer, while someone holds it; `CancellationError` once it is gone, which ends the round.
    private var indexer: SpotliteIndexer {
        get throws {
            guard let owner else { throw CancellationError() }
            return owner
        }
    }

    /// Changes of indexed entities, except updates of columns no field reads (unless a document provider decides
    /// documents: it may read anything).
    func includes(_ change: HistoryChange) -> Bool {
        reader.indexes(change)
    }

    func document(for record: RecordID, in db: Database) throws -> RecordDocument? {
        try documents(for: [record], in: db)[0]
    }

    func documents(for records: [RecordID], in db: Database) throws -> [RecordDocument?] {
        let found = try reader.attributeSets(for: records.map { IndexRecordID(entity: $0.entity, key: $0.key) }, in: db)
        return records.map { record in
            found[ExactText(DocumentIdentity.term(entity: record.entity, key: record.key))].map {
                RecordDocument(entity: $0.entity, attributes: $0.attributes)
            }
        }
    }

    func relatedRecords(of records: [RecordID], in db: Database) throws -> [RecordID] {
        try reader.dependents(of: records.map { IndexRecordID(entity: $0.entity, key: $0.key) }, in: db)
            .map { RecordID(entity: $0.entity, key: $0.key) }
    }

    func resumePoint() async throws -> HistoryResumePoint {
        try await indexer.historyResumePoint()
    }

    func resynchronizationReason(resumingAfter cursor: HistoryCursor) async throws -> String? {
        let indexer = try self.indexer
        return await indexer.pendingRebuildReason?.description
    }

    func resynchronize(because reason: HistoryResynchronizationReason, from store: SpotliteStore) async throws
        -> HistoryResynchronization
    {
        .completed(through: try await indexer.rebuild(because: reason))
    }

    func apply(_ batch: HistoryBatch<RecordDocument>) async throws {
        try await indexer.applyHistoryBatch(batch)
    }

    func flush() async throws {
        try await indexer.flushHistory()
    }

    func roundWillBegin(number: Int, resynchronizing reason: HistoryResynchronizationReason?) async throws {
        try await indexer.beginRound(resynchronizing: reason)
    }

    func roundDidEnd(number: Int, result: Result<HistoryConsumerRound, any Error>) async {
        await owner?.endRound(result)
    }
}
