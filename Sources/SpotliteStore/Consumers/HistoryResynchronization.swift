/// Where a ``HistoryConsumer`` resumes (``HistoryConsumer/resumePoint()``).
public enum HistoryResumePoint: Sendable, Hashable {
    /// At the position the driver saved in the store (``HistoryConsumerDriver/position()``).
    case savedPosition
    /// After `cursor`, the checkpoint the consumer committed with its own data (``HistoryBatch/cursor``). The
    /// driver brings the position saved in the store in line with it, so cleanup keeps what follows.
    case after(HistoryCursor)
    /// The consumer holds nothing yet: it starts at the driver's ``HistoryConsumerStart``.
    case start
}

/// Why a ``HistoryConsumerDriver`` resynchronises a consumer from the store's rows instead of giving it history.
public enum HistoryResynchronizationReason: Sendable, Hashable, CustomStringConvertible {
    /// The consumer holds nothing yet and starts from a ``HistoryConsumerStart/snapshot``.
    case firstStart
    /// The history after `requested` was deleted (through `purgedThrough`) before the consumer read it: only the
    /// rows can tell what changed meanwhile.
    case historyDeleted(requested: HistoryToken?, purgedThrough: HistoryToken)
    /// The consumer (``HistoryConsumer/resynchronizationReason(resumingAfter:)``) or the app
    /// (``HistoryConsumerDriver/resynchronize(reason:)``) asked, for this reason.
    case requested(String)

    /// The reason in words, for logs and summaries.
    public var description: String {
        switch self {
        case .firstStart:
            return "the consumer holds nothing yet"
        case .historyDeleted(let requested, let purgedThrough):
            return "the history after token \(requested.map { "\($0)" } ?? "0") was deleted (through token \(purgedThrough)) before the consumer read it"
        case .requested(let reason):
            return reason
        }
    }
}

/// How a consumer resynchronised (``HistoryConsumer/resynchronize(because:from:)``).
public enum HistoryResynchronization: Sendable, Hashable {
    /// The driver is to deliver every current record of the filter's entities through
    /// ``HistoryConsumer/apply(_:)`` as snapshot batches (``HistoryBatch/Kind/snapshot``).
    case deliverSnapshot
    /// The consumer rebuilt itself from the rows as they were at `token` (nil: before any transaction); the
    /// driver continues with the history after it.
    case completed(through: HistoryToken?)
}
