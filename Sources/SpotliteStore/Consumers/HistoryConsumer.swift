import GRDB

/// Anything with a position of its own in a store's history, saved in the store under ``consumerName``: the search
/// indexer, a ``HistoryTracker``, any ``HistoryConsumer``. Cleanup waits for it as for a required author
/// (``HistoryTracker/register(consumer:)``, ``HistoryDeletionPolicy/waiting(for:)``, ``SpotliteStore/registerConsumer(_:position:)``).
public protocol HistoryPositionHolder: Sendable {
    /// The name under which the position is saved (``SpotliteStore/setPosition(_:for:timestamp:)``).
    var consumerName: String { get }
}

extension HistoryPositionHolder {
    /// The saved position in `store`; nil before one was saved (cleanup then waits for it).
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func position(in store: SpotliteStore) throws -> HistoryPosition? {
        try store.position(of: consumerName)
    }
}

extension HistoryDeletionPolicy {
    /// This policy, also waiting for `consumers`' positions.
    public func waiting(for consumers: [any HistoryPositionHolder]) -> HistoryDeletionPolicy {
        var copy = self
        for consumer in consumers where !copy.requiredAuthors.contains(consumer.consumerName) {
            copy.requiredAuthors.append(consumer.consumerName)
        }
        return copy
    }
}

/// A consumer of a store's history that only says what to do with changes; a ``HistoryConsumerDriver`` does the
/// rest: it pages history after the consumer's position, reads the current document of every changed record,
/// calls ``apply(_:)``, saves the position once it returns, registers the consumer so cleanup waits for it, and
/// runs live (on every change notification, from any process) or on demand.
///
/// An embedding indexer, for one:
///
/// ```swift
/// struct EmbeddingIndexer: HistoryConsumer {
///     let vectors: VectorStore
///     var consumerName: String { "embeddings" }
///     var filter: HistoryRequest { HistoryRequest(entities: ["Package"]) }
///
///     func document(for record: RecordID, in db: Database) throws -> String? {
///         try String.fetchOne(db, sql: "SELECT summary FROM Package WHERE name = ?", arguments: [record.key])
///     }
///
///     func apply(_ batch: HistoryBatch<String>) async throws {
///         for upsert in batch.upserts { try await vectors.store(embed(upsert.document), for: upsert.record) }
///         for record in batch.deletions { try await vectors.remove(record) }
///     }
/// }
/// ```
///
/// The driver calls the asynchronous hooks on its own thread (they are `nonisolated(nonsending)`), so a consumer's
/// synchronous work in them runs there, off Swift's cooperative threads and without a hop between threads; hooks
/// isolated to an actor of the consumer's own run on that actor.
///
/// Delivery is at least once: when ``apply(_:)`` throws, the position stays and the same changes come again, so
/// applying must be idempotent (an upsert of the current document is).
public protocol HistoryConsumer: HistoryPositionHolder {
    /// What the consumer makes of a record: its current document, read by ``document(for:in:)``.
    /// By default the row's columns.
    associatedtype Document: Sendable = [String: DatabaseValue]

    /// Which history the consumer wants: authors, context names, entities and change types (the start and the
    /// limit are the driver's). Transactions it leaves out are passed over, and the driver logs how many.
    /// By default everything.
    var filter: HistoryRequest { get }

    /// The current document of `record`, or nil to treat the record as absent (deleted, or left out). Runs on a
    /// read-only snapshot taken after the changes were read, so a document may already include later changes;
    /// they come again in a later batch.
    func document(for record: RecordID, in db: Database) throws -> Document?

    /// Applies one batch. The position moves past it only once this returns; a throw leaves it, and the batch is
    /// delivered again (after a growing delay in live mode). When it returns, the batch must be applied for good:
    /// the driver saves the position in the store next, and cleanup may then delete the history before it.
    nonisolated(nonsending) func apply(_ batch: HistoryBatch<Document>) async throws

    // MARK: Optional hooks

    /// Whether a change the ``filter`` selected matters to the consumer: a change it leaves out still comes in
    /// ``HistoryBatch/transactions`` but brings no record to the batch (a search index leaves out updates of
    /// columns it does not index). By default every change matters.
    func includes(_ change: HistoryChange) -> Bool

    /// The current documents of `records`, in the same order (nil for a record to treat as absent). Called once
    /// per batch, so a consumer can read many rows with one query; by default ``document(for:in:)`` for each.
    func documents(for records: [RecordID], in db: Database) throws -> [Document?]

    /// Other records whose documents depend on `records` (the records a batch changed), delivered in the same
    /// batch as upserts (or deletions, when their document is nil): a parent whose document includes its
    /// children's titles must follow a child's change. By default none.
    func relatedRecords(of records: [RecordID], in db: Database) throws -> [RecordID]

    /// Where the consumer resumes, read at the start of every round. A consumer that commits its own checkpoint
    /// with its data (``HistoryBatch/cursor``, in the same transaction) returns it here, so a crash between its
    /// commit and the driver's save of the position can neither skip nor lose a batch; it may stop inside a
    /// transaction delivered in pieces and resume there. By default ``HistoryResumePoint/savedPosition``: the
    /// position the driver saves in the store.
    ///
    /// With a checkpoint of its own, the position the driver saves in the store (what cleanup waits for) follows
    /// this checkpoint, read again after each batch and after ``flush()``: ``apply(_:)`` may then return while its
    /// commit is still in flight (to read the next batch meanwhile), as long as the checkpoint says only what is
    /// committed.
    nonisolated(nonsending) func resumePoint() async throws -> HistoryResumePoint

    /// Makes everything applied so far durable: called when a round has applied its last batch, and before a
    /// resynchronisation. A consumer whose ``apply(_:)`` returns with a commit in flight waits for it here. By
    /// default nothing.
    nonisolated(nonsending) func flush() async throws

    /// Why the consumer must be resynchronised from the rows rather than given the history after `cursor`, asked
    /// at the start of every round: say a backlog bigger than rebuilding costs, or data the consumer cannot use.
    /// By default nil: never.
    nonisolated(nonsending) func resynchronizationReason(resumingAfter cursor: HistoryCursor) async throws -> String?

    /// Brings what the consumer holds in line with the store's current rows, because history cannot: `reason`
    /// says why. Return ``HistoryResynchronization/deliverSnapshot`` (the default) to receive every current
    /// record of the filter's entities through ``apply(_:)`` as ``HistoryBatch/Kind/snapshot`` batches, or rebuild
    /// on your own (read the rows in one read transaction, note its token, build beside what you hold, switch
    /// atomically) and return ``HistoryResynchronization/completed(through:)`` with that token; the driver then
    /// delivers the history after it.
    nonisolated(nonsending) func resynchronize(because reason: HistoryResynchronizationReason, from store: SpotliteStore) async throws
        -> HistoryResynchronization

    /// Called at the start of every round, live or on demand, before anything is read: `number` counts the
    /// driver's rounds from 1 (``HistoryConsumerRound/number``), and `reason` is set for a round that
    /// ``HistoryConsumerDriver/resynchronize(reason:)`` asked for. Rounds never overlap, so a consumer can reset
    /// what it reports per round here. A throw fails the round before it reads anything. By default nothing.
    nonisolated(nonsending) func roundWillBegin(number: Int, resynchronizing reason: HistoryResynchronizationReason?) async throws

    /// Called when a round ends, with what it did or why it failed (`CancellationError` when it was stopped),
    /// before the driver's ``HistoryConsumerDriver/roundEvents()`` hear of it and before the caller of
    /// ``HistoryConsumerDriver/processPending()`` gets the result. By default nothing.
    nonisolated(nonsending) func roundDidEnd(number: Int, result: Result<HistoryConsumerRound, any Error>) async
}

extension HistoryConsumer {
    /// Everything.
    public var filter: HistoryRequest { HistoryRequest() }

    /// Every change matters.
    public func includes(_ change: HistoryChange) -> Bool { true }

    /// ``document(for:in:)`` for each record.
    ///
    /// - Throws: what ``document(for:in:)`` throws.
    public func documents(for records: [RecordID], in db: Database) throws -> [Document?] {
        try records.map { try document(for: $0, in: db) }
    }

    /// None.
    public func relatedRecords(of records: [RecordID], in db: Database) throws -> [RecordID] { [] }

    /// ``HistoryResumePoint/savedPosition``.
    public nonisolated(nonsending) func resumePoint() async throws -> HistoryResumePoint { .savedPosition }

    /// Nothing: ``apply(_:)`` returns once its batch is applied for good.
    public nonisolated(nonsending) func flush() async throws {}

    /// Never.
    public nonisolated(nonsending) func resynchronizationReason(resumingAfter cursor: HistoryCursor) async throws -> String? { nil }

    /// ``HistoryResynchronization/deliverSnapshot``.
    public nonisolated(nonsending) func resynchronize(because reason: HistoryResynchronizationReason, from store: SpotliteStore) async throws
        -> HistoryResynchronization
    {
        .deliverSnapshot
    }

    /// Nothing.
    public nonisolated(nonsending) func roundWillBegin(number: Int, resynchronizing reason: HistoryResynchronizationReason?) async throws {}

    /// Nothing.
    public nonisolated(nonsending) func roundDidEnd(number: Int, result: Result<HistoryConsumerRound, any Error>) async {}
}

extension HistoryConsumer where Document == [String: DatabaseValue] {
    /// The record's row: every column by name; nil when the row no longer exists.
    ///
    /// - Throws: SQLite's errors (GRDB's `DatabaseError`).
    public func document(for record: RecordID, in db: Database) throws -> [String: DatabaseValue]? {
        try RecordID.currentRow(of: record, in: db)
    }
}
