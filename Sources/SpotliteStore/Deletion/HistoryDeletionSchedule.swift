/// When consumed history is deleted on its own, without being asked (`[history] clean` in `spotlite.toml`).
///
/// Deleting history follows Core Data's vocabulary: a ``HistoryDeleter`` deletes the history before the
/// watermark its ``HistoryDeletionPolicy`` allows; this schedule says when a ``HistoryTracker`` runs one by itself.
public enum HistoryDeletionSchedule: Sendable, Hashable {
    /// Never on its own; delete with ``HistoryTracker/deleter()`` (or `spotlite history clean`) at a moment the
    /// app chooses. The default, because deleting history that a sync engine or another consumer still needs loses
    /// data.
    case none
    /// At most once per interval: the first change notification deletes, later ones within the interval do not
    /// (`{ every = "4h" }`).
    case every(Duration)
    /// On the n-th, 2n-th, … change notification a tracker receives, n ≥ 1 (`{ notifications = 50 }`).
    case notifications(Int)
}
