/// What one deletion of consumed history did (or, in a dry run, would do).
public struct HistoryDeletionResult: Sendable, Hashable {
    /// The lowest position over the required authors; nil when one of them has none.
    public var watermark: HistoryToken?
    /// How many transactions were (in a dry run: would be) deleted.
    public var deletedTransactions: Int
    /// How many transactions remain (in a dry run: would remain).
    public var keptTransactions: Int
    /// Why this much and no more was deleted.
    public var reason: String
    /// Required authors without a position that cleanup still waits for.
    public var absentAuthors: [String] = []
    /// Required authors without a position for longer than the maximum duration: cleanup no longer waits for them.
    public var abandonedAuthors: [String] = []
}
