/// When a ``HistoryTracker`` cleans history on its own, after processing a change notification.
public enum CleanStrategy: Sendable, Hashable {
    /// Never on its own; clean with ``HistoryTracker/cleaner()`` at a moment the app chooses. The default, because
    /// deleting history that a sync engine or another consumer still needs loses data.
    case none
    /// At most once per interval: the first notification cleans, later ones within the interval do not.
    case byDuration(Duration)
    /// On the n-th, 2n-th, … change notification this tracker receives (n ≥ 1).
    case byNotification(times: Int)
}
