/// What a tracker did, for apps that show sync state and for tests that wait for a delivery.
public enum HistoryTrackerEvent: Sendable {
    /// The position advanced to `position` after `transactions` were delivered. The position may pass over
    /// transactions that are not for this author (its own, outside its batch contexts), so `transactions` can be 0.
    case delivered(transactions: Int, position: HistoryToken)
    /// A cleanup ran after a change notification.
    case deletedHistory(HistoryDeletionResult)
    /// Processing failed; the position is unchanged and the same history is tried again with the next
    /// notification. A ``SpotliteStoreError/expiredToken(requested:purgedThrough:)`` error means the author must
    /// resynchronise and then call ``HistoryTracker/resetPosition(to:)``.
    case failed(any Error)
}
