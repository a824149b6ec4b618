/// Where a ``HistoryConsumerDriver`` starts a consumer that has no saved position yet. A saved position always wins.
public enum HistoryConsumerStart: Sendable, Hashable {
    /// Only what is committed from the driver's creation on.
    case now
    /// Every transaction from the first one recorded; when history was already cleaned, as ``snapshot``.
    case beginning
    /// Every current record of the filter's entities first (``HistoryBatch/Kind/snapshot``), then the history
    /// committed after the snapshot: what an index built for an existing store needs.
    case snapshot
}

/// What one round of a ``HistoryConsumerDriver`` did.
public struct HistoryConsumerRound: Sendable, Hashable {
    /// The round's number in its driver, from 1 (the number ``HistoryConsumer/roundWillBegin(number:resynchronizing:)``
    /// was given); 0 for a round no driver ran.
    public var number = 0
    /// Batches applied.
    public var batches = 0
    /// Transactions delivered (a transaction cut over several batches counts once per batch).
    public var transactions = 0
    /// Records delivered with their document.
    public var upserts = 0
    /// Records delivered as removed.
    public var deletions = 0
    /// Transactions the consumer's filter left out, passed over.
    public var passedOver = 0
    /// Whether the round resynchronised the consumer from the rows (first start, history deleted before the
    /// consumer read it, or a resynchronisation asked for): ``resynchronization`` says why.
    public var snapshot = false
    /// Why the round resynchronised the consumer, or nil when it did not (the last reason when it did twice).
    public var resynchronization: HistoryResynchronizationReason?
    /// The consumer's position after the round.
    public var position: HistoryToken?

    /// An empty round.
    public init() {}
}

/// What a ``HistoryConsumerDriver`` did, for apps showing sync state and for tests waiting for a round.
public enum HistoryConsumerEvent: Sendable {
    /// A round ended: everything pending when it started (and maybe more) is applied.
    case processed(HistoryConsumerRound)
    /// A round failed; the position stays at the last applied batch, and the rest comes again (live mode retries
    /// with a growing delay).
    case failed(any Error)
}
