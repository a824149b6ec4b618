/// Why a ``HistoryTracker`` passes over a transaction instead of delivering it
/// (``HistoryTrackerConfiguration/passOverReason(for:)``).
public enum TrackerPassOverReason: Sendable, Hashable, CustomStringConvertible {
    /// The current author's own write, outside its batch contexts: the app already holds it.
    case ownWrite
    /// A mirror author's import, without ``HistoryTrackerConfiguration/includesMirrorAuthors``.
    case mirrorAuthor
    /// An unattributed write, without ``HistoryTrackerConfiguration/includesUnattributedTransactions``.
    case unattributed

    /// Why, in words, for the log.
    public var description: String {
        switch self {
        case .ownWrite: "its own writes"
        case .mirrorAuthor: "mirror authors, left out by includesMirrorAuthors = false"
        case .unattributed: "unattributed writes, left out by includesUnattributedTransactions = false"
        }
    }
}
