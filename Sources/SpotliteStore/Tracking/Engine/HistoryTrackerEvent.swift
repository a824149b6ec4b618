/// What a tracker did, for apps that show sync state and for tests that wait for a delivery.
public enum HistoryTrackerEvent: Sendable {
    /// Transactions were delivered and the position advanced to `position`. `transactions` counts the delivered
    /// ones (the current author's own transactions outside its batch contexts are passed over, not delivered).
    case delivered(transactions: Int, position: HistoryToken)
    /// A cleanup ran after a change notification.
    case cleaned(CleanupResult)
    /// Processing failed; the position is unchanged and the same history is tried again with the next
    /// notification. A ``HistoryError/expiredToken(requested:purgedThrough:)`` error means the author must
    /// resynchronise and then call ``HistoryTracker/resetPosition(to:)``.
    case failed(any Error)
}
