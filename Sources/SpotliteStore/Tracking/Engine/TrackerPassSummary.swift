/// What one round of processing did.
public struct TrackerPassSummary: Sendable, Hashable {
    /// How many transactions were delivered (over every fetch batch of the round).
    public var deliveredTransactions: Int
    /// The current author's position after the round (nil when it has none yet).
    public var position: HistoryToken?
    /// The deletion that followed, if the deletion schedule asked for one.
    public var deletion: HistoryDeletionResult?

    /// A summary of a round.
    public init(deliveredTransactions: Int = 0, position: HistoryToken? = nil, deletion: HistoryDeletionResult? = nil) {
        self.deliveredTransactions = deliveredTransactions
        self.position = position
        self.deletion = deletion
    }
}
