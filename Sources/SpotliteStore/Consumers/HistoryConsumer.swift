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
    /// delivered again (after a growing delay in live mode).
    func apply(_ batch: HistoryBatch<Document>) async throws
}

extension HistoryConsumer {
    /// Everything.
    public var filter: HistoryRequest { HistoryRequest() }
}

extension HistoryConsumer where Document == [String: DatabaseValue] {
    /// The record's row: every column by name; nil when the row no longer exists.
    public func document(for record: RecordID, in db: Database) throws -> [String: DatabaseValue]? {
        try RecordID.currentRow(of: record, in: db)
    }
}
