/// How much a ``HistoryTracker`` logs, as PersistentHistoryTrackingKit's `logLevel` 0, 1, 2.
public enum TrackerLogLevel: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// Nothing.
    case off = 0
    /// Failures, expired positions and cleanups that deleted something.
    case important = 1
    /// Also every delivery, position change and cleanup decision.
    case detailed = 2

    /// Orders levels from the quietest (`off`) to the most detailed.
    public static func < (lhs: TrackerLogLevel, rhs: TrackerLogLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
