/// What a ``HistoryConsumerDriver`` hands a ``HistoryConsumer`` at a time: a page of history and, for each record it
/// changed, the record's current document or its removal.
public struct HistoryBatch<Document: Sendable>: Sendable {
    /// A record's current document.
    public struct Upsert: Sendable {
        /// The record.
        public var record: RecordID
        /// Its document now.
        public var document: Document

        /// `record`'s current `document`.
        public init(record: RecordID, document: Document) {
            self.record = record
            self.document = document
        }
    }

    /// How the batch came to be.
    public enum Kind: Sendable, Hashable {
        /// Changes read from history.
        case history
        /// Every current record of the filter's entities, read from the rows (first start from a snapshot, or
        /// resynchronisation after the history the consumer needed was deleted). ``isFirstOfSnapshot`` tells
        /// the consumer to drop what it held first.
        case snapshot
    }

    /// History or snapshot.
    public var kind: Kind
    /// With ``Kind/snapshot``: this is the first batch of the snapshot, so the consumer should forget the records
    /// it holds before applying it (the records absent from the snapshot no longer exist).
    public var isFirstOfSnapshot: Bool
    /// The transactions read (for history batches), with the changes the filter kept, in token order. The last may
    /// hold only part of its changes when a transaction is too big for one batch.
    public var transactions: [HistoryTransaction]
    /// The changed records that exist, with their documents, in change order (each record once).
    public var upserts: [Upsert]
    /// The changed records that no longer exist, or whose document is nil, in change order.
    public var deletions: [RecordID]
    /// Where the consumer's position goes once the batch is applied; nil when it does not move (the batch is part of
    /// a transaction or a snapshot that continues in the next batch).
    public var position: HistoryToken?
    /// Where the consumer stands once the batch is applied, inside a transaction delivered in pieces too: the
    /// checkpoint a consumer with its own ``HistoryConsumer/resumePoint()`` commits with the batch's data. Nil for
    /// the batches of a snapshot but its last (a snapshot cut short starts over).
    ///
    /// A consumer with its own resume point also gets batches without records when the filter left out
    /// everything read, so that its checkpoint keeps up with the store.
    public var cursor: HistoryCursor?

    /// A batch as the driver makes one, for testing a consumer's ``HistoryConsumer/apply(_:)`` without a store:
    /// a history batch by default, or with `kind` ``Kind/snapshot`` the rows of a snapshot.
    ///
    /// ```swift
    /// let vim = RecordID(entity: "Package", key: "vim".databaseValue)
    /// try await consumer.apply(HistoryBatch(upserts: [.init(record: vim, document: "editor")]))
    /// ```
    public init(kind: Kind = .history, isFirstOfSnapshot: Bool = false, transactions: [HistoryTransaction] = [],
                upserts: [Upsert] = [], deletions: [RecordID] = [], position: HistoryToken? = nil,
                cursor: HistoryCursor? = nil) {
        self.kind = kind
        self.isFirstOfSnapshot = isFirstOfSnapshot
        self.transactions = transactions
        self.upserts = upserts
        self.deletions = deletions
        self.position = position
        self.cursor = cursor
    }
}
